import { RestapError } from '../errors/restap.error';
import { backoffDelay, parseRetryAfter, withRetries } from './retry';

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:05 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(5000);
  });

  it('ignores absent or garbage values', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt within [ceiling/2, ceiling] and caps', () => {
    expect(backoffDelay(0, 100, 1000, () => 0)).toBe(50);
    expect(backoffDelay(2, 100, 1000, () => 1)).toBe(400);
    expect(backoffDelay(10, 100, 1000, () => 1)).toBe(1000);
  });
});

describe('withRetries', () => {
  const transient = (status: number, retryAfterMs?: number) => new RestapError(`http_${status}`, 'x', { status, retryAfterMs });

  it('retries network errors, 5xx and 429 until success', async () => {
    const failures = [new RestapError('network_error', 'down'), transient(503, 0), transient(429, 0)];
    let calls = 0;
    const result = await withRetries(async () => {
      calls++;
      const next = failures.shift();
      if (next) throw next;
      return 'ok';
    }, { retries: 3, baseDelayMs: 1 });
    expect(result).toBe('ok');
    expect(calls).toBe(4);
  });

  it('does not retry a 4xx, an abort or a timeout', async () => {
    for (const error of [transient(400), new RestapError('aborted', 'x'), new RestapError('timeout', 'x')]) {
      let calls = 0;
      await expect(withRetries(async () => {
        calls++;
        throw error;
      }, { retries: 3, baseDelayMs: 1 })).rejects.toBe(error);
      expect(calls).toBe(1);
    }
  });

  it('gives up after the retry budget, and when Retry-After is beyond reason', async () => {
    let calls = 0;
    await expect(withRetries(async () => {
      calls++;
      throw transient(500, 0);
    }, { retries: 2 })).rejects.toMatchObject({ status: 500 });
    expect(calls).toBe(3);
    await expect(withRetries(async () => {
      throw transient(503, 3_600_000);
    }, { retries: 2 })).rejects.toMatchObject({ status: 503 });
  });

  it('honours Retry-After', async () => {
    const started = Date.now();
    let calls = 0;
    await withRetries(async () => {
      if (calls++ === 0) throw transient(429, 120);
    }, { retries: 1, baseDelayMs: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
  });
});
