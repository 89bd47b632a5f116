import type { IncomingHttpHeaders } from 'node:http';

/**
 * Who asked, as a door saw it: the original request's headers (so a guard reached in-process judges
 * the real caller's credentials) and address. Built once per request by the door that received it
 * (`callerOf`).
 */
export interface RestapCaller {
  /** The request's headers, lower-case names. */
  readonly headers: IncomingHttpHeaders;
  /** The client's address, when known. */
  readonly ip?: string;
}
