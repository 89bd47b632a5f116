import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { CatalogRoute } from '../catalog/catalog.route';
import { RestapRegistry } from '../../core/registry/restap.registry';
import type { ResolvedRestapOptions } from '../../interfaces/restap-options.interface';
import { RestapDrain } from '../../lifecycle/restap-drain.service';
import { RestapBodyParser } from './restap-body.parser';
import { RestapCors } from './restap-cors';
import { matchRestapRoute } from './restap-paths';

/**
 * The module's one Express middleware ahead of Nest's body parsers and router, registered while
 * the application is created. It matches the path once; a request for the host's own routes pays
 * that single comparison and passes on. On the module's paths it runs, in this order: CORS, the
 * shutdown drain, the JSON body parser (POST /talk, /news), then the catalog.
 */
@Injectable()
export class RestapFrontDoor {
  constructor(
    adapterHost: HttpAdapterHost,
    private readonly registry: RestapRegistry,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly cors: RestapCors,
    private readonly drain: RestapDrain,
    private readonly body: RestapBodyParser,
    private readonly catalog: CatalogRoute,
  ) {
    // An application context without HTTP serves no routes.
    adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.handle(req, res, next));
  }

  private handle(req: Request, res: Response, next: NextFunction): void {
    const match = matchRestapRoute(req.path, this.registry.paths, this.options);
    if (!match) return next();
    this.cors.handle(req, res, () =>
      this.drain.refuseWhileDraining(res, () =>
        this.body.handle(req, res, () => {
          if (match.route === 'catalog' && !match.subpath && (req.method === 'GET' || req.method === 'HEAD')) this.catalog.serve(req, res);
          else next();
        }, match),
      match),
    match);
  }
}
