/**
 * A statement of the module failed. Carries what an operator needs and nothing a request sent: the
 * statement's purpose, the driver's error code (SQLSTATE, or a socket code such as ECONNREFUSED)
 * and `ref`, the correlation id of the log line written for it. Never the SQL's parameter values,
 * the driver's `detail` (which quotes them) or the original error object — so a host that logs
 * thrown errors whole still logs no request data.
 */
export class RestapQueryError extends Error {
  override readonly name = 'RestapQueryError';

  constructor(
    /** What the statement does, e.g. `news.append`. */
    readonly purpose: string,
    /** SQLSTATE or Node error code of the failure, when the driver gave one. */
    readonly code: string | undefined,
    /** Correlation id, also in the log line. */
    readonly ref: string,
    /** True when the failure means the database is unreachable (answered 503), not a bad statement. */
    readonly unavailable: boolean,
    message: string,
  ) {
    super(message);
  }
}
