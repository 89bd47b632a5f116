/** Options every client call accepts. */
export interface CallOptions {
  /** Cancels the call (and an ongoing stream). */
  signal?: AbortSignal;
  /** Deadline for the whole call, streams included. `0` disables it. @default the client's timeoutMs */
  timeoutMs?: number;
  /** Extra request headers for this call (e.g. `Authorization`). */
  headers?: Record<string, string>;
}

/** Minimal `fetch` shape the client needs, so tests and hosts can inject their own. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** Options of {@link RestapClient.discover} and the client constructor. */
export interface RestapClientOptions {
  /** `fetch` implementation. @default globalThis.fetch */
  fetch?: FetchLike;
  /** Headers sent on every request (authentication lives here: RESTAP does not define it). */
  headers?: Record<string, string>;
  /** Default deadline of each call, ms. `0` disables it. @default 60000 */
  timeoutMs?: number;
  /** Session to continue from the first talk turn. */
  sessionId?: string;
  /** Cancels discovery. */
  signal?: AbortSignal;
}
