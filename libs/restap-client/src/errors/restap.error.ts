/**
 * Codes the client raises itself. Server errors keep the server's own `error` field
 * (e.g. `invalid_session_id`), so `code` is any string.
 */
export type RestapClientErrorCode =
  | 'network_error'
  | 'timeout'
  | 'aborted'
  | 'not_restap'
  | 'invalid_catalog'
  | 'invalid_input'
  | 'invalid_output'
  | 'invalid_response'
  | 'invalid_event'
  | 'stream_error'
  | 'stream_interrupted'
  | 'unexpected_content_type'
  | 'unknown_capability'
  | 'invalid_schema';

/** Optional fields of a {@link RestapError}. */
export interface RestapErrorInit {
  /** HTTP status when the failure came from a response. */
  status?: number;
  /** Parsed response body, or the validation errors for `invalid_input` / `invalid_output`. */
  details?: unknown;
  /** Delay the server asked for in `Retry-After`, ms. */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * The one error type the client throws.
 *
 * @example
 * try { await client.talk('hi') } catch (e) {
 *   if (e instanceof RestapError && e.code === 'invalid_session_id') client.resetSession();
 * }
 */
export class RestapError extends Error {
  override readonly name = 'RestapError';
  /** The server's `error` field, `http_<status>` when it sent none, or a client-side code. */
  readonly code: RestapClientErrorCode | (string & {});
  readonly status?: number;
  readonly details?: unknown;
  readonly retryAfterMs?: number;

  constructor(code: RestapClientErrorCode | (string & {}), message: string, init: RestapErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.status = init.status;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** True for failures worth retrying with the same idempotency key: the request may not have landed. */
export function isTransientError(error: unknown): boolean {
  if (!(error instanceof RestapError)) return false;
  if (error.code === 'network_error') return true;
  return error.status !== undefined && (error.status === 429 || error.status >= 500);
}
