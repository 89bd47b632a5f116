/**
 * SQLSTATE classes meaning "the database is not reachable right now", not "your query is wrong":
 * connection (08), resources (53), operator intervention and shutdown (57P0x), statement_timeout /
 * cancel (57014), system errors (58).
 */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0|57014|58)/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Cannot use a pool after calling end|terminating connection|Query read timeout|Connection terminated due to connection timeout/i;

/** True when an error means storage is unavailable (answered 503 storage_unavailable). */
export function isStorageError(error: unknown): boolean {
  // A failed statement of the module was classified when it failed (its original error is gone).
  if (error instanceof Error && error.name === 'RestapQueryError') return (error as { unavailable?: boolean }).unavailable === true;
  for (let e = error as { code?: unknown; message?: unknown; driverError?: unknown; cause?: unknown } | undefined, depth = 0;
    e && typeof e === 'object' && depth < 4;
    e = (e.driverError ?? e.cause) as typeof e, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (UNAVAILABLE_NODE_CODES.has(code) || (code.length === 5 && UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  }
  return false;
}
