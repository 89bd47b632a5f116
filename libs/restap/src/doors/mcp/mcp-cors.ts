import type { Request, Response } from 'express';
import * as wire from '../../wire/constants';

const ALLOW_METHODS = 'POST, GET, DELETE';
const ALLOW_HEADERS = `Content-Type, Accept, Authorization, X-API-Key, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, ${wire.SESSION_ID_HEADER}`;
const EXPOSE_HEADERS = 'Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After';

/**
 * CORS for browser MCP clients on origins the Origin check already allowed (loopback and
 * `mcp.allowedOrigins`): without it such a page could not read an answer, and its preflight would
 * meet the host's guards. Returns true when it answered a preflight itself (204).
 */
export function applyMcpCors(req: Request, res: Response): boolean {
  const origin = req.headers.origin;
  if (!origin) return false;
  res.vary('Origin');
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false;
  res.statusCode = 204;
  res.setHeader('Access-Control-Allow-Methods', ALLOW_METHODS);
  res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.end();
  return true;
}
