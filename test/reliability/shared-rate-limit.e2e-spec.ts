import type { LoggerService } from '@nestjs/common';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import type { RestapRateLimitOptions } from 'nestjs-restap';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { getNews } from '../fixtures/news-http';
import { freePort } from './support/child-agent';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 18, item 4 — rate limits shared by replicas through rate-limiter-flexible behind the
// @nestjs/throttler storage interface: Redis (the machine's, 127.0.0.1:6379; .ci/run starts it)
// or the app's own PostgreSQL. Redis going away is survived: each instance counts on its own
// (the insurance limiter), logs a warning, and never hangs or fails a request.
jest.setTimeout(120_000);

/** Records what the app logs at warn level and above. */
class CapturingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(message: unknown): void {
    this.warnings.push(String(message));
  }
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

/** A redis-server of the test's own on a free port, which the test may stop. */
async function startPrivateRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port, '127.0.0.1', () => (socket.end(), resolve(true))).once('error', () => resolve(false));
    });
    if (open) break;
    if (i > 100) throw new Error('private redis-server did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Statuses of GET /news sent in turn to the given apps. */
async function hits(apps: ReliabilityApp[], n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await getNews(apps[i % apps.length].url)).status);
  return statuses;
}

/** Two replicas of one agent (a fresh name: counters of earlier runs in the shared Redis never count). */
function useReplicas(rateLimit: () => RestapRateLimitOptions, logger?: CapturingLogger): { a: ReliabilityApp; b: ReliabilityApp } {
  const pair = {} as { a: ReliabilityApp; b: ReliabilityApp };
  let shared: ReplicaDatabase | undefined;
  beforeAll(async () => {
    let url: string;
    shared = await openReplicaDatabase();
    url = shared.url;
    const restap = { agent: { name: `Rate limit fixture ${randomBytes(6).toString('hex')}` }, rateLimit: rateLimit() };
    pair.a = await startReliabilityApp({ url }, { restap, logger });
    pair.b = await startReliabilityApp({ url }, { restap, logger });
  });
  afterAll(async () => {
    await pair.a?.close();
    await pair.b?.close();
    await shared?.close();
  });
  return pair;
}

describe('rateLimit.redis (issue 18): requests spread over two replicas hit one limit', () => {
  const r = useReplicas(() => ({ limit: 6, ttlMs: 60_000, redis: 'redis://127.0.0.1:6379' }));

  it('6 requests alternating between A and B pass; the 7th, on either, is 429 too_many_requests with Retry-After', async () => {
    expect(await hits([r.a, r.b], 6)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const app of [r.a, r.b]) {
      const refused = await getNews(app.url);
      expect([refused.status, refused.json.error]).toEqual([429, 'too_many_requests']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('rateLimit.postgres (issue 18): the same shared limit, counted in the app database', () => {
  const r = useReplicas(() => ({ limit: 4, ttlMs: 60_000, postgres: true }));

  it('4 requests alternating between A and B pass; the 5th is 429', async () => {
    expect(await hits([r.a, r.b], 5)).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('rateLimit.redis while Redis is stopped (issue 18): per-instance counting, a warning, no hang and no 500', () => {
  let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
  const logger = new CapturingLogger();
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  const r = useReplicas(() => ({ limit: 4, ttlMs: 60_000, redis: redis.url }), logger);

  it('shared while Redis runs; once it stops, each replica enforces the limit on its own, answering at once', async () => {
    expect(await hits([r.a, r.b], 5)).toEqual([200, 200, 200, 200, 429]);
    await redis.stop();
    for (const app of [r.a, r.b]) {
      const started = Date.now();
      expect(await hits([app], 5)).toEqual([200, 200, 200, 200, 429]);
      expect(Date.now() - started).toBeLessThan(3_000);
    }
    expect(logger.warnings).toContainEqual(expect.stringContaining('Redis is unreachable'));
  });
});
