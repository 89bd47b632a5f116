import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import { TooManyRequestsException } from '../../../exceptions';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { writeDoorError } from '../http/door-error.writer';
import { lingeringClose } from '../http/lingering-close';
import { countRateLimitRefusal } from '../../../core/telemetry/restap.metrics';
import { spanEvent } from '../../../core/telemetry/restap.telemetry';
import { ATTR } from '../../../core/telemetry/telemetry.names';

/** Token of the store the module's rate limit counts hits in (a `@nestjs/throttler` ThrottlerStorage). */
export const RESTAP_THROTTLER_STORAGE = Symbol('RESTAP_THROTTLER_STORAGE');

/**
 * The `rateLimit` option, a step of every door's pipeline (see DoorKit) run before the request's body is read: an over-quota
 * client is answered 429 too_many_requests with `Retry-After` at once, whatever its body (no
 * upload read, no JSON parsed, no guard, no handler, no LLM call). Hits are counted in a
 * `@nestjs/throttler` ThrottlerStorage (per instance unless `rateLimit.storage` is a shared one),
 * per client (`req.ip`: set Express's `trust proxy` behind a proxy) and route (POST /talk,
 * GET /news, POST /news). Only the module's routes count; the host's others are untouched.
 */
@Injectable()
export class RestapRateLimit {
  private readonly logger = new Logger('Restap');

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    @Inject(RESTAP_THROTTLER_STORAGE) private readonly storage: ThrottlerStorage,
  ) {}

  /**
   * Takes a hit for the request's client on `bucket` (each door's endpoint counts on its own, e.g.
   * `'mcp'`), then calls `next`, or answers 429 with `Retry-After`. Without `rateLimit`, just `next`.
   */
  limit(req: Request, res: Response, bucket: string, next: () => void): void {
    const { rateLimit } = this.options;
    if (!rateLimit) return next();
    const client = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    this.storage.increment(`restap:${bucket}:${client}`, rateLimit.ttlMs, rateLimit.limit, rateLimit.ttlMs, 'default').then(
      ({ totalHits, timeToExpire, isBlocked, timeToBlockExpire }) => {
        if (isBlocked) {
          countRateLimitRefusal(bucket);
          spanEvent('restap.rate_limited', { [ATTR.restapRateLimitBucket]: bucket });
          const seconds = Math.max(1, Math.ceil(timeToBlockExpire));
          lingeringClose(res, this.options.limits); // its body, if any, is never read
          return writeDoorError(
            res,
            new TooManyRequestsException(
              `Rate limit reached: at most ${rateLimit.limit} requests per ${Math.round(rateLimit.ttlMs / 1000)} s on this endpoint. Retry in ${seconds} s.`,
              { 'Retry-After': String(seconds) },
            ),
          );
        }
        res.setHeader('X-RateLimit-Limit', rateLimit.limit);
        res.setHeader('X-RateLimit-Remaining', Math.max(0, rateLimit.limit - totalHits));
        res.setHeader('X-RateLimit-Reset', timeToExpire);
        next();
      },
      (error: unknown) => {
        // A limiter whose store is down must not take the agent down with it: let the request through.
        this.logger.warn(`Rate limit store failed (${(error as Error)?.name ?? 'Error'}); request let through`);
        next();
      },
    );
  }
}
