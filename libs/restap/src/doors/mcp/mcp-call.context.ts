import type { RestapCaller } from '../../core/caller';

/** What the door knows of the HTTP request an MCP message came in, for the tools it reaches. */
export interface McpCall {
  /** The original request's identity: the invoker's guards judge these headers. */
  caller: RestapCaller;
  /** The Restap-Session-Id header, validated; the session whose news a read or post addresses. */
  sessionId?: string;
  /** The JSON-RPC method of the request's body (`tools/list`, `tools/call`, …), when it has one. */
  method?: string;
  /**
   * A 2025-11-25 `tools/call` asking for a task: its `params.task` (the SDK's request validation
   * leaves it out of the params a handler sees). See enableTasks.
   */
  task?: Record<string, unknown>;
}

/**
 * The call of each web `Request` the door hands to the SDK. The SDK gives a handler that same
 * `Request` as `ctx.http.req` (the factory's `requestInfo`, on both eras), so the tools, resources
 * and their handlers, built once per process, find the caller of the request they serve by it at
 * call time. Not AsyncLocalStorage: on Node 20 its first use turns on promise hooks for the whole
 * process, and every route then pays for them. Weak: an entry goes with its request.
 */
const calls = new WeakMap<Request, McpCall>();

/** Ties `request` (the one the door passes to the SDK's handler) to the HTTP request's call. */
export function bindCall(request: Request, call: McpCall): void {
  calls.set(request, call);
}

/**
 * The call of the request a handler serves, from its context. No call bound (never on the door's
 * path): a caller without headers, judged by the host's guards as anonymous.
 */
export function callOf(ctx: { http?: { req?: Request } }): McpCall {
  const request = ctx.http?.req;
  return (request === undefined ? undefined : calls.get(request)) ?? { caller: { headers: {} } };
}

/** The call bound to the web `Request` the SDK hands the server factory, if any. */
export function callOfRequest(request: Request | undefined): McpCall | undefined {
  return request === undefined ? undefined : calls.get(request);
}
