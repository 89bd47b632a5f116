import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import * as wire from '../../../wire/constants';
import { ALLOWED_METHODS, type RouteMatch } from './restap-paths';

const ALLOW_HEADERS = `Content-Type, Accept, Authorization, ${wire.SESSION_ID_HEADER}, ${wire.IDEMPOTENCY_KEY_HEADER}`;
const EXPOSE_HEADERS = 'Retry-After';

/**
 * CORS of the catalog, /talk and /news: none unless `cors` is configured, then only for the listed
 * origins (preflights answered here). Whatever the host's own CORS says, a session-scoped /news
 * never answers `Access-Control-Allow-Origin: *`: its feeds are per-session secrets.
 */
@Injectable()
export class RestapCors {
  constructor(@Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions) {}

  /** Called by the front door for requests on the module's paths. */
  handle(req: Request, res: Response, next: () => void, match: RouteMatch): void {
    if (match.subpath) return next();
    if (match.route === 'news' && this.options.news.scope === 'session') refuseWildcardOrigin(res);
    const { cors } = this.options;
    if (!cors) return next();
    res.vary('Origin');
    const origin = req.headers.origin;
    if (!origin || (cors.origins !== '*' && !cors.origins.includes(origin))) return next();
    res.setHeader('Access-Control-Allow-Origin', cors.origins === '*' ? '*' : origin);
    res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return next();
    res.statusCode = 204;
    res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS[match.route].join(', '));
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS);
    res.setHeader('Access-Control-Max-Age', String(cors.maxAgeSeconds));
    res.end();
  }
}

/** Drops a wildcard `Access-Control-Allow-Origin` (set by any later middleware) as the head goes out. */
function refuseWildcardOrigin(res: Response): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    if (this.getHeader('Access-Control-Allow-Origin') === '*') this.removeHeader('Access-Control-Allow-Origin');
    return writeHead.apply(this, args);
  } as Response['writeHead'];
}
