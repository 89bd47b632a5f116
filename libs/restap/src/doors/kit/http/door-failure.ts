import type { ServerResponse } from 'node:http';
import { toErrorBody } from './restap-exception.filter';
import { writeJson } from './restap-json.writer';

/**
 * Answers a door's request with `error` in the module's shape (`{"error", "message"}`, the
 * exception's status and headers). Once the head is out (an SDK's stream began), it can only end
 * what was written.
 */
export function failDoorRequest(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const { status, body, headers } = toErrorBody(error);
  writeJson(res, status, JSON.stringify(body), headers);
}
