import type { IncomingHttpHeaders } from 'node:http';
import type { RestapCaller } from '../interfaces/caller.interface';

export type { RestapCaller };

/** The caller of an HTTP request (Express's or Node's). */
export function callerOf(req: { headers: IncomingHttpHeaders; ip?: string; socket?: { remoteAddress?: string } }): RestapCaller {
  const ip = req.ip ?? req.socket?.remoteAddress;
  return ip === undefined ? { headers: req.headers } : { headers: req.headers, ip };
}
