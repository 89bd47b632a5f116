import type { Response } from 'express';
import { CONTENT_TYPE_JSON } from '../restap.constants';
import type { RestapException } from '../exceptions';

/**
 * Answers a request outside Nest's routing (middleware, fallbacks) in the module's error shape:
 * status, the exception's headers, `{"error", "message"}` as UTF-8 JSON. No-op once headers are out.
 */
export function writeRestapError(res: Response, error: RestapException): void {
  if (res.headersSent) return;
  res.statusCode = error.getStatus();
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', `${CONTENT_TYPE_JSON}; charset=utf-8`);
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(error.toJSON()));
}
