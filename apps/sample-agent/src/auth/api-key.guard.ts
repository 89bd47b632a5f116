import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { Request } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { RestapException } from 'nestjs-restap';

/** Token of the sample's API key (RESTAP_API_KEY); absent or empty: the guard lets everything through. */
export const API_KEY = Symbol('API_KEY');

/**
 * The sample's optional API-key check, off unless RESTAP_API_KEY is set. The key comes as
 * `Authorization: Bearer <key>` or `X-API-Key: <key>`; anything else is 401 unauthorized in the
 * RESTAP error shape. Given to RestapModule's `guards` option (so it guards /talk and /news) and
 * put on the text capabilities; the catalog and the health checks stay public.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly expected?: Buffer;

  constructor(@Optional() @Inject(API_KEY) key?: string) {
    if (key) this.expected = digest(key);
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.expected) return true;
    const req = context.switchToHttp().getRequest<Request>();
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const header = req.headers['x-api-key'];
    const given = bearer ?? (typeof header === 'string' ? header.trim() : undefined);
    // Compared as digests: equal length, constant time, whatever the caller sent.
    if (given && timingSafeEqual(digest(given), this.expected)) return true;
    throw new RestapException(401, 'unauthorized', 'Send the API key as "Authorization: Bearer <key>" or "X-API-Key: <key>".', {
      'WWW-Authenticate': 'Bearer realm="restap"',
    });
  }
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
