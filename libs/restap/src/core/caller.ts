import type { IncomingHttpHeaders } from 'node:http';

/**
 * Who asked, as a door saw it: the original request's headers (so a guard reached in-process judges
 * the real caller's credentials) and address. Built once per request by the door that received it.
 */
export interface RestapCaller {
  /** The request's headers, lower-case names. */
  readonly headers: IncomingHttpHeaders;
  /** The client's address, when known. */
  readonly ip?: string;
}

/** The caller of an HTTP request (Express's or Node's). */
export function callerOf(req: { headers: IncomingHttpHeaders; ip?: string; socket?: { remoteAddress?: string } }): RestapCaller {
  const ip = req.ip ?? req.socket?.remoteAddress;
  return ip === undefined ? { headers: req.headers } : { headers: req.headers, ip };
}
