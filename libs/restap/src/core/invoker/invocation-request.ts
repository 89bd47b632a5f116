import type { IncomingHttpHeaders } from 'node:http';
import { SESSION_ID_HEADER } from '../../restap.constants';
import type { RegisteredCapability } from '../registry/restap.registry';
import type { RestapCaller } from '../caller';
import type { SyntheticRequestInit } from './synthetic-http';

/** Headers of the original request that describe its own body or connection, not the caller. */
const MESSAGE_HEADERS = ['content-length', 'transfer-encoding', 'content-encoding', 'content-type', 'accept', 'expect', 'connection', 'upgrade'];

/**
 * Spreads a tool call's flat arguments over the route as its catalog entry describes it: the
 * `parameters` named `in: path` fill the path, those `in: query` the query string, and the rest
 * is the JSON body (when the route takes one). Path and query values become strings, as they
 * would arrive over HTTP, so the route's pipes (ParseIntPipe, ValidationPipe's transform) treat
 * them alike.
 */
export function toSyntheticRequest(capability: RegisteredCapability, args: Record<string, unknown>, caller: RestapCaller): SyntheticRequestInit {
  const params: Record<string, string> = {};
  const query: Record<string, string | string[]> = {};
  const rest: Record<string, unknown> = { ...args };
  for (const parameter of capability.parameters ?? []) {
    const value = args[parameter.name];
    delete rest[parameter.name];
    if (value === undefined || value === null) continue;
    if (parameter.in === 'path') params[parameter.name] = asText(value);
    else query[parameter.name] = Array.isArray(value) ? value.map(asText) : asText(value);
  }
  const path = capability.endpoint.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) for (const v of Array.isArray(value) ? value : [value]) search.append(name, v);
  const takesBody = capability.inputSchema !== undefined;
  return {
    method: capability.method,
    url: search.size ? `${path}?${search}` : path,
    headers: callerHeaders(caller.headers, takesBody),
    params,
    query,
    body: takesBody ? rest : undefined,
    ip: caller.ip,
  };
}

/**
 * The caller's identity headers (Authorization, X-API-Key, cookies…) as a request of its own:
 * what described the original request's body is dropped, and the session_id, a secret of the
 * conversation rather than of the caller, never reaches a capability.
 */
function callerHeaders(headers: IncomingHttpHeaders, takesBody: boolean): IncomingHttpHeaders {
  const own: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (MESSAGE_HEADERS.includes(key) || key === SESSION_ID_HEADER) continue;
    own[key] = value;
  }
  own.accept = 'application/json';
  if (takesBody) own['content-type'] = 'application/json';
  return own;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}
