import type { IncomingHttpHeaders } from 'node:http';
import type { RestapCaller, RestapCallerAuth } from '../interfaces/caller.interface';

export type { RestapCaller, RestapCallerAuth };

/** The request field a door's bearer check writes the verified caller to (read by `callerOf`). */
export const CALLER_AUTH = Symbol('restap.callerAuth');

/** The caller of an HTTP request (Express's or Node's). */
export function callerOf(req: { headers: IncomingHttpHeaders; ip?: string; socket?: { remoteAddress?: string } }): RestapCaller {
  // Express's `req.ip` runs proxy-addr over X-Forwarded-For at every read; without that header it is
  // the socket's address whatever `trust proxy` says, so it is read from the socket.
  const ip = req.headers['x-forwarded-for'] ? (req.ip ?? req.socket?.remoteAddress) : (req.socket?.remoteAddress ?? req.ip);
  const auth = (req as { [CALLER_AUTH]?: RestapCallerAuth })[CALLER_AUTH];
  const caller: { headers: IncomingHttpHeaders; ip?: string; auth?: RestapCallerAuth } = { headers: req.headers };
  if (ip !== undefined) caller.ip = ip;
  if (auth !== undefined) caller.auth = auth;
  return caller;
}
