import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerStorage } from '@nestjs/throttler';
import { RESTAP_OPTIONS } from '../restap.constants';
import { TooManyRequestsException } from '../exceptions';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';

/** Token of the store the module's rate limit counts hits in (shared by every guard instance). */
export const RESTAP_THROTTLER_STORAGE = Symbol('RESTAP_THROTTLER_STORAGE');

/**
 * `@nestjs/throttler`'s guard, on the module's controllers only, configured by the `rateLimit`
 * option: never registered globally, so the host's other routes (and its own ThrottlerModule, if
 * any) are untouched. Past the limit: 429 too_many_requests with `Retry-After` (seconds), before
 * the handler runs — so before any LLM call.
 */
@Injectable()
export class RestapThrottlerGuard extends ThrottlerGuard {
  private ready?: Promise<void>;

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly restapOptions: ResolvedRestapOptions,
    @Inject(RESTAP_THROTTLER_STORAGE) storage: ThrottlerStorage,
    reflector: Reflector,
  ) {
    const { rateLimit } = restapOptions;
    super({ throttlers: rateLimit ? [{ name: 'default', limit: rateLimit.limit, ttl: rateLimit.ttlMs }] : [] }, storage, reflector);
  }

  override onModuleInit(): Promise<void> {
    // Without a rate limit there is nothing to set up (and the parent would warn about it).
    return (this.ready ??= this.restapOptions.rateLimit ? super.onModuleInit() : Promise.resolve());
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.restapOptions.rateLimit || context.getType() !== 'http') return true;
    await this.onModuleInit(); // guards are not always given lifecycle hooks
    return super.canActivate(context);
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const seconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw new TooManyRequestsException(
      `Rate limit reached: at most ${detail.limit} requests per ${Math.round(detail.ttl / 1000)} s on this endpoint. Retry in ${seconds} s.`,
      { 'Retry-After': String(seconds) },
    );
  }
}
