import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { CATALOG_PATH } from '../../../restap.constants';
import { RestapRegistry } from '../../../core/registry/restap.registry';
import { ATTR } from '../../../core/telemetry/telemetry.names';
import { bindToDoor, openDoorSpan, runInDoor, type DoorSpanOf } from '../../../core/telemetry/door-span.telemetry';
import { CatalogRoute } from '../catalog/catalog.route';
import { DoorKit } from '../../kit/door-kit';
import { DoorPipeline } from '../../kit/door-pipeline';
import { RestapCors } from './restap-cors';
import { RestapRouteMatcher } from './restap-route.matcher';
import type { RestapRoute, RouteMatch } from './restap-paths';

/**
 * The module's one Express middleware ahead of Nest's body parsers and router, registered while
 * the application is created. It matches the path once, the way the host's router does (so `/TALK`
 * or `/news/` under Express's default settings are the module's paths too); a request for the
 * host's own routes pays that single comparison and passes on. On the module's paths it runs its
 * DoorPipeline: CORS, the shutdown drain (discovery keeps answering), the rate limit, the OAuth
 * bearer token (when `auth.oauth` is set), the JSON
 * body (POST /talk, /news), then serves the catalog — so a refused request is refused before its
 * body is read.
 * Each such request is one server span (`POST /talk`, `GET /news`, `GET /.well-known/restap.json`),
 * continuing the caller's `traceparent`; the pipeline and the route handler run inside it.
 */
@Injectable()
export class RestapFrontDoor {
  private readonly pipeline: DoorPipeline<RouteMatch>;
  private readonly spans = new Map<RestapRoute, Map<string, DoorSpanOf>>();

  constructor(
    adapterHost: HttpAdapterHost,
    private readonly paths: RestapRouteMatcher,
    cors: RestapCors,
    kit: DoorKit,
    private readonly catalog: CatalogRoute,
    private readonly registry: RestapRegistry,
  ) {
    this.pipeline = new DoorPipeline<RouteMatch>([
      (req, res, next, match) => cors.handle(req, res, next, match),
      kit.refuseWhileDraining<RouteMatch>((match) => match.route === 'catalog'),
      kit.rateLimit<RouteMatch>(bucketOf),
      // OAuth (auth.oauth): a bearer token on /talk and /news; the catalog stays public. Off: not in the pipeline.
      kit.bearerAuth<RouteMatch>((_req, match) => match.route === 'catalog'),
      kit.jsonBody<RouteMatch>('send the body as application/json.', (req, match) => req.method === 'POST' && !match.subpath && match.route !== 'catalog'),
    ]);
    // An application context without HTTP serves no routes.
    kit.admitBeforeHost(adapterHost.httpAdapter, (req, res, next) => this.handle(req, res, next));
  }

  private handle(req: Request, res: Response, next: NextFunction): boolean {
    const match = this.paths.match(req.path);
    if (!match) return false;
    res.removeHeader('x-powered-by'); // Express announces itself on every answer; ours say nothing about the stack
    const serve = (): void => {
      if (match.route === 'catalog' && !match.subpath && (req.method === 'GET' || req.method === 'HEAD')) this.catalog.serve(req, res);
      else next();
    };
    const door = openDoorSpan(req, res, this.describe, match);
    // The body arrives on socket events, outside this call: the continuation is bound to the span.
    const bound = bindToDoor(door, serve);
    runInDoor(door, () => this.pipeline.run(req, res, match, bound));
    return true;
  }

  private readonly describe = (req: Request, match: RouteMatch): DoorSpanOf => this.spanOf(match.route, req.method);

  /** The server span's name and attributes for `method` on `route`, made once per pair (methods are the few node:http parses). */
  private spanOf(route: RestapRoute, method: string): DoorSpanOf {
    let byMethod = this.spans.get(route);
    if (!byMethod) this.spans.set(route, (byMethod = new Map()));
    let span = byMethod.get(method);
    if (!span) {
      // The path template only (never the URL: a query may hold a session_id).
      const template = (route === 'catalog' ? CATALOG_PATH : this.registry.paths[route]) ?? route;
      span = {
        name: `${method} ${template}`,
        attributes: Object.freeze({ [ATTR.restapDoor]: 'restap', [ATTR.httpRequestMethod]: method, [ATTR.httpRoute]: template }),
      };
      byMethod.set(method, span);
    }
    return span;
  }
}

/** The rate limit's counter a request takes a hit on: each route counts on its own, as the spec's endpoints do. */
function bucketOf(req: Request, match: RouteMatch): string | undefined {
  const method = req.method;
  // Below /talk only a resumable stream's turn is served (GET resumes it, DELETE stops it; talk.resume).
  if (match.subpath) return match.route === 'talk' && (method === 'GET' || method === 'DELETE') ? 'talk.resume' : undefined;
  if (match.route === 'talk') return method === 'POST' ? 'talk' : undefined;
  if (match.route === 'news') return method === 'POST' ? 'news.write' : method === 'GET' || method === 'HEAD' ? 'news.read' : undefined;
  return undefined;
}
