import { AsyncLocalStorage } from 'node:async_hooks';
import type { RestapCaller } from '../core/caller';

/** What the door knows of the HTTP request an MCP message came in, for the tools it reaches. */
export interface McpCall {
  /** The original request's identity: the invoker's guards judge these headers. */
  caller: RestapCaller;
  /** The Restap-Session-Id header, validated; the session whose news a read or post addresses. */
  sessionId?: string;
}

/**
 * The current request's call, across the SDK: `createMcpHandler` builds a server per request from
 * our factory and runs its handlers inside the same async chain, so the door sets this once around
 * the SDK's handler instead of smuggling headers through `authInfo` (which is for verified tokens).
 */
export const mcpCalls = new AsyncLocalStorage<McpCall>();

/**
 * The call of the request being served, read when a handler runs: the tools, resources and their
 * handlers are built once per process and registered on each request's server, so the caller is
 * looked up here at call time instead of being closed over per request.
 */
export function currentCall(): McpCall {
  // No call bound (never on the door's path): a caller without headers, judged by the host's guards as anonymous.
  return mcpCalls.getStore() ?? { caller: { headers: {} } };
}
