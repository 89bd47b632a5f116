import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { RestapException } from '../../../exceptions/restap.exception';
import { StorageUnavailableException } from '../../../exceptions/storage-unavailable.exception';
import { isStorageError } from '../../../persistence/storage-errors';
import { writeJson } from './restap-json.writer';

/** Turns an HTTP status into our snake_case code when a framework exception carries none. */
const STATUS_CODES: Record<number, string> = {
  400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found',
  405: 'method_not_allowed', 406: 'not_acceptable', 408: 'request_timeout', 413: 'payload_too_large',
  415: 'unsupported_media_type', 422: 'unprocessable_entity', 429: 'too_many_requests',
  503: 'service_unavailable', 504: 'gateway_timeout',
};

/** Renders any error as `{"error", "message"}` JSON. */
export function toErrorBody(error: unknown): { status: number; body: { error: string; message: string }; headers: Record<string, string> } {
  if (error instanceof RestapException) {
    return { status: error.getStatus(), body: error.toJSON(), headers: error.headers };
  }
  const ref = refOf(error);
  if (isStorageError(error)) {
    const e = new StorageUnavailableException(undefined, { 'Retry-After': '1' });
    return { status: e.getStatus(), body: { ...e.toJSON(), message: `${e.message}${ref}` }, headers: e.headers };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = STATUS_CODES[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request');
    const response = error.getResponse();
    const raw = typeof response === 'string' ? response : (response as { message?: unknown }).message;
    const message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : error.message;
    return { status, body: { error: code, message }, headers: {} };
  }
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    body: { error: 'internal_error', message: `The agent hit an unexpected error.${ref}` },
    headers: {},
  };
}

/** ` (ref …)` when the error has a correlation id (a failed statement's, also in its log line). */
function refOf(error: unknown): string {
  const ref = (error as { ref?: unknown } | null)?.ref;
  return typeof ref === 'string' && /^[A-Za-z0-9_-]{1,16}$/.test(ref) ? ` (ref ${ref})` : '';
}

/**
 * Exception filter of the module's own routes; the host's other routes keep their own handling.
 * Writes through `writeJson`, like the module's middleware errors and /talk's: the same headers
 * (`Cache-Control: no-store`) on every error, and no ETag hashed for a body nobody revalidates.
 */
@Catch()
export class RestapExceptionFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    writeRestapError(host.switchToHttp().getResponse<Response>(), error);
  }
}

const logger = new Logger('Restap');

/**
 * What the filter does, for a route that answers outside Nest's handler chain (a held news poll):
 * the error as `{"error", "message"}` JSON, a 5xx that is not ours logged (class and message only),
 * or, once the headers are out, the response just ended.
 */
export function writeRestapError(res: Response, error: unknown): void {
  const { status, body, headers } = toErrorBody(error);
  if (status >= 500 && !(error instanceof RestapException)) {
    // Only the class and message: request data (session ids included) never reaches the log.
    logger.error(`${(error as Error)?.name ?? 'Error'}: ${(error as Error)?.message ?? String(error)}`);
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  writeJson(res, status, JSON.stringify(body), headers);
}
