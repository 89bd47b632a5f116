import type { ServerResponse } from 'node:http';
import { CONTENT_TYPE_JSON } from '../../../restap.constants';

const JSON_UTF8 = `${CONTENT_TYPE_JSON}; charset=utf-8`;

/**
 * Writes a JSON answer of the module's routes straight to the response, `Cache-Control: no-store`:
 * none of them may be cached (they carry session ids, or change at every write). Express's `send`
 * is skipped on purpose: it hashes every body for an ETag nobody revalidates.
 */
export function writeJson(res: ServerResponse, status: number, json: string, headers?: Record<string, string>): void {
  res.statusCode = status;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]);
  res.setHeader('Content-Type', JSON_UTF8);
  res.setHeader('Cache-Control', 'no-store');
  res.end(json);
}
