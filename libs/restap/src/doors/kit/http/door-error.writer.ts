import type { ServerResponse } from 'node:http';
import { toErrorBody } from './restap-exception.filter';
import { writeJson } from './restap-json.writer';

/**
 * Answers a request outside Nest's routing (a door's pipeline, fallbacks, an SDK's handler) with
 * `error` in the module's shape: the exception's status and headers, `{"error", "message"}` as
 * UTF-8 JSON. Once the head is out (an SDK's stream began), it can only end what was written.
 */
export function writeDoorError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  const { status, body, headers } = toErrorBody(error);
  writeJson(res, status, JSON.stringify(body), headers);
}
