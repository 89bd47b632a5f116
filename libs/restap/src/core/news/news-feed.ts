import { hashSessionId } from '../../sessions/session-id';
import { GLOBAL_SEQUENCE } from '../../persistence/news.store';

/** Feed of items posted without a session. */
export const GLOBAL_FEED = 'global';

/** The feed an item belongs to: 'global', or the hex SHA-256 of its session id (never the raw id). */
export function feedOf(sessionId: string | undefined): string {
  return sessionId === undefined ? GLOBAL_FEED : hashSessionId(sessionId).toString('hex');
}

/**
 * The timestamp sequence of a feed. Global scope: one sequence for all feeds, because a read
 * without a session returns every feed in one `ts` order. Session scope: each feed its own, so
 * sessions never wait on each other's writes.
 */
export function sequenceOf(scope: 'global' | 'session', feed: string): string {
  return scope === 'global' ? GLOBAL_SEQUENCE : feed;
}

/** A committed item, as a wake-up hint: its feed key and timestamp. Read the store after it. */
export interface NewsCommitHint {
  /** `'global'`, or `feedOf(sessionId)` (the hex hash of the session id). */
  feed: string;
  /** The item's `timestamp` (ms, its sequence's order). */
  ts: number;
}
