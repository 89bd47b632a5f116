import type { Response } from 'express';
import type { RestapException } from '../../../exceptions';
import { writeJson } from './restap-json.writer';

/**
 * Answers a request outside Nest's routing (middleware, fallbacks) in the module's error shape:
 * status, the exception's headers, `{"error", "message"}` as UTF-8 JSON. No-op once headers are out.
 */
export function writeRestapError(res: Response, error: RestapException): void {
  if (res.headersSent) return;
  writeJson(res, error.getStatus(), JSON.stringify(error.toJSON()), error.headers);
}
