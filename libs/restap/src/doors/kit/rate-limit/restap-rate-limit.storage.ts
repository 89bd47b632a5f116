import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';

/** Table RateLimiterPostgres keeps its counters in (created on first use, as the library does). */
export const RATE_LIMIT_TABLE = 'restap_rate_limits';
/** Longest a Redis command may take before the insurance limiter answers instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** Where the counters live: a Redis URL, or the app's own PostgreSQL database. */
export type SharedRateLimitBackend = { redis: string } | { postgres: DataSource };

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * `@nestjs/throttler`'s storage interface over rate-limiter-flexible, so N replicas enforce one
 * limit: `RateLimiterRedis` (ioredis) or `RateLimiterPostgres` (TypeORM's own pg pool). Each has an
 * in-memory insurance limiter: while the store is unreachable, each instance counts on its own and
 * a warning is logged once; a request never waits on the store for more than a moment
 * (ioredis' offline queue is off and commands time out at 500 ms) and never fails because of it.
 *
 * Keys are prefixed with a hash of the agent's name, so agents sharing one Redis count apart.
 *
 * @example
 * RestapModule.forRoot({ agent, rateLimit: { limit: 120, ttlMs: 60_000, redis: process.env.RESTAP_REDIS_URL } })
 */
export class SharedThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly keyPrefix: string;
  private redis?: Redis;
  private table?: Promise<void>;
  private unreachable = false;
  private closing = false;

  constructor(
    private readonly backend: SharedRateLimitBackend,
    agentName: string,
  ) {
    this.keyPrefix = `restap_rl_${createHash('sha256').update(agentName).digest('hex').slice(0, 12)}`;
    if ('redis' in backend) this.redis = this.connectRedis(backend.redis);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const limiter = await this.limiterFor(ttl, limit, blockDuration, throttlerName);
    try {
      const res = await limiter.consume(key);
      return { totalHits: res.consumedPoints, timeToExpire: seconds(res.msBeforeNext), isBlocked: false, timeToBlockExpire: 0 };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const wait = seconds(rejection.msBeforeNext);
      return { totalHits: rejection.consumedPoints, timeToExpire: wait, isBlocked: true, timeToBlockExpire: wait };
    }
  }

  onApplicationShutdown(): void {
    this.closing = true;
    this.redis?.disconnect(); // also stops reconnecting; counters live on in Redis
  }

  /** One limiter per throttler setting (the module has one; the interface allows several). */
  private async limiterFor(ttl: number, limit: number, blockDuration: number, name: string): Promise<RateLimiterAbstract> {
    const id = `${name}:${ttl}:${limit}:${blockDuration}`;
    const known = this.limiters.get(id);
    if (known) return known;
    const common = { keyPrefix: `${this.keyPrefix}_${name}`, points: limit, duration: seconds(ttl), blockDuration: seconds(blockDuration) };
    const insuranceLimiter = new RateLimiterMemory(common);
    let limiter: RateLimiterAbstract;
    if (this.redis) {
      limiter = new RateLimiterRedis({ ...common, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter });
    } else {
      await (this.table ??= this.createTable()).catch(() => (this.table = undefined));
      const pool = ((this.backend as { postgres: DataSource }).postgres.driver as { master?: unknown }).master;
      limiter = new RateLimiterPostgres({ ...common, storeClient: pool, storeType: 'pool', tableName: RATE_LIMIT_TABLE, tableCreated: true, insuranceLimiter });
    }
    this.limiters.set(id, limiter);
    return limiter;
  }

  /** The library's own CREATE TABLE IF NOT EXISTS, once, before the first count. */
  private createTable(): Promise<void> {
    const pool = ((this.backend as { postgres: DataSource }).postgres.driver as { master?: unknown }).master;
    return new Promise((resolve, reject) => {
      new RateLimiterPostgres({ storeClient: pool, storeType: 'pool', tableName: RATE_LIMIT_TABLE, clearExpiredByTimeout: false, points: 1, duration: 1 }, (error?: unknown) =>
        error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
      );
    });
  }

  /**
   * ioredis set up never to hold a request: no offline queue (a command while disconnected fails
   * at once, so the insurance limiter answers), a short command timeout, and reconnection forever.
   */
  private connectRedis(url: string): Redis {
    const client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
      lazyConnect: false,
    });
    const unreachable = (why: string): void => {
      if (this.unreachable || this.closing) return;
      this.unreachable = true;
      this.logger.warn(`Rate limit: Redis is unreachable (${why}); each instance counts on its own until it is back.`);
    };
    client.on('error', (error: Error) => unreachable(error.message));
    client.on('close', () => unreachable('connection closed'));
    client.on('ready', () => {
      if (!this.unreachable) return;
      this.unreachable = false;
      this.logger.log('Rate limit: Redis is back; the limit is shared across replicas again.');
    });
    return client;
  }
}
