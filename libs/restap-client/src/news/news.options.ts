import type { CallOptions } from '../interfaces/options.interface';

/** Options of {@link NewsClient.list}. */
export interface NewsListOptions extends CallOptions {
  /** Only items with a larger `timestamp` (ms, exclusive). */
  since?: number;
  /** Page size; the server caps it. */
  limit?: number;
  /**
   * Long-poll: seconds the server may hold the request when nothing is newer than `since` (it
   * answers as soon as an item commits). Only for agents whose catalog lists the `wait` parameter;
   * capped at its maximum. The request's timeout is extended by this much.
   */
  wait?: number;
  /**
   * Session of a session-scoped feed, sent in the `Restap-Session-Id` header (never in the URL).
   * @default the client's current session when the catalog declares the feed session-scoped
   */
  sessionId?: string;
}

/** Options of {@link NewsClient.follow}. `timeoutMs` applies to each poll. */
export interface NewsFollowOptions extends NewsListOptions {
  /** Wait after a poll that returned items, and the first idle wait. @default 1000 */
  minIntervalMs?: number;
  /** Longest idle wait; idle waits double up to it. @default 30000 */
  maxIntervalMs?: number;
  /**
   * When the catalog offers long-polling (`wait` on GET news), each poll waits on the server up to
   * this many seconds instead of sleeping between polls; `0` turns it off (plain polling).
   * @default the catalog's maximum (30)
   */
  wait?: number;
}

/** Options of {@link NewsClient.post}. `timeoutMs` applies to each attempt. */
export interface NewsPostOptions extends CallOptions {
  /** Makes retries safe: the server stores the item once per key. @default crypto.randomUUID() */
  idempotencyKey?: string;
  /** Session to post into (header and body). @default as for list */
  sessionId?: string;
  /** Retries after a network error, 5xx or 429. @default 3 */
  retries?: number;
}
