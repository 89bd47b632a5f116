import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { context } from '@opentelemetry/api';
import { CATALOG_PATH } from '../../../restap.constants';
import { RestapRegistry } from '../../../core/registry/restap.registry';
import { ATTR } from '../../../core/telemetry/telemetry.names';
import { startDoorSpan } from '../../../core/telemetry/restap.telemetry';
import { CatalogRoute } from '../catalog/catalog.route';
import { RestapDrain } from '../../../core/lifecycle/restap-drain.service';
import { RestapRateLimit } from '../../kit/rate-limit/restap-rate-limit';
import { RestapBodyParser } from './restap-body.parser';
import { RestapCors } from './restap-cors';
import { RestapRouteMatcher } from './restap-route.matcher';

/**
 * The module's one Express middleware ahead of Nest's body parsers and router, registered while
 * the application is created. It matches the path once, the way the host's router does (so `/TALK`
 * or `/news/` under Express's default settings are the module's paths too); a request for the
 * host's own routes pays that single comparison and passes on. On the module's paths it runs, in
 * this order: CORS, the shutdown drain, the rate limit, the JSON body parser (POST /talk, /news),
 * then the catalog — so a refused request is refused before its body is read. Each such request
 * is one server span (`POST /talk`, `GET /news`, `GET /.well-known/restap.json`), continuing the
 * caller's `traceparent`; the route handler runs inside it.
 */
@Injectable()
export class RestapFrontDoor {
  constructor(
    adapterHost: HttpAdapterHost,
    private readonly paths: RestapRouteMatcher,
    private readonly cors: RestapCors,
    private readonly drain: RestapDrain,
    private readonly rateLimit: RestapRateLimit,
    private readonly body: RestapBodyParser,
    private readonly catalog: CatalogRoute,
    private readonly registry: RestapRegistry,
  ) {
    // An application context without HTTP serves no routes.
    adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.handle(req, res, next));
  }

  private handle(req: Request, res: Response, next: NextFunction): void {
    const match = this.paths.match(req.path);
    if (!match) return next();
    res.removeHeader('X-Powered-By'); // Express announces itself on every answer; ours say nothing about the stack
    // The path template only (never the URL: a query may hold a session_id).
    const route = (match.route === 'catalog' ? CATALOG_PATH : this.registry.paths[match.route]) ?? match.route;
    const door = startDoorSpan(`${req.method} ${route}`, req, res, {
      [ATTR.restapDoor]: 'restap',
      [ATTR.httpRequestMethod]: req.method,
      [ATTR.httpRoute]: route,
    });
    // The body arrives on socket events, outside this call: the continuation is bound to the span.
    const serve = context.bind(door, () => {
      if (match.route === 'catalog' && !match.subpath && (req.method === 'GET' || req.method === 'HEAD')) this.catalog.serve(req, res);
      else next();
    });
    context.with(door, () =>
      this.cors.handle(req, res, () =>
        this.drain.refuseWhileDraining(res, () =>
          this.rateLimit.handle(req, res, () => this.body.handle(req, res, serve, match), match),
        match),
      match),
    );
  }
}
