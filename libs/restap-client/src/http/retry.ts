import { isTransientError, RestapError } from '../errors/restap.error';
import { sleep } from './abort';

/** Parses `Retry-After` (delta seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential back-off with jitter so many clients retrying together do not stampede. */
export function backoffDelay(attempt: number, baseMs = 250, maxMs = 8_000, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** How {@link withRetries} behaves. */
export interface RetryPolicy {
  retries: number;
  signal?: AbortSignal;
  /** Longest `Retry-After` honoured; a server asking for more makes the call fail instead of hang. */
  maxRetryAfterMs?: number;
  baseDelayMs?: number;
}

/**
 * Runs `attempt` until it succeeds, fails permanently, or `retries` retries are spent.
 * Only transient failures (network, 5xx, 429) are retried: callers must make the request
 * idempotent (news.post does so with an Idempotency-Key).
 */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= policy.retries || !isTransientError(error)) throw error;
      const asked = error instanceof RestapError ? error.retryAfterMs : undefined;
      if (asked !== undefined && asked > (policy.maxRetryAfterMs ?? 60_000)) throw error;
      const delay = asked ?? backoffDelay(n, policy.baseDelayMs);
      await sleep(delay, policy.signal);
    }
  }
}
