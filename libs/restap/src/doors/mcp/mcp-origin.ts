import { originValidation } from '@modelcontextprotocol/node';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Loopback hosts, always allowed: local tools such as the MCP Inspector's web UI run there. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The MCP transport's `Origin` check against DNS rebinding, with the SDK's own guard: a request
 * without `Origin` passes (non-browser clients send none), loopback origins and `allowedOrigins`
 * pass, any other origin is answered 403 by the guard (a JSON-RPC error body) and goes no further.
 * Same-host origins are not implied: under DNS rebinding the attacker's page and Host agree.
 */
export function createOriginCheck(allowedOrigins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  return originValidation([...LOOPBACK, ...allowedOrigins]);
}
