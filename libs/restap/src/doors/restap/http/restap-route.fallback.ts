import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import { MethodNotAllowedException, RouteNotFoundException } from '../../../exceptions';
import { writeDoorError } from '../../kit/http/door-error.writer';
import { ALLOWED_METHODS } from './restap-paths';
import { RestapRouteMatcher } from './restap-route.matcher';

/**
 * What the module's paths answer when no route took the request: 405 with `Allow` for a method
 * an endpoint does not serve (OPTIONS: 204 with `Allow`), 404 for a path below an endpoint, both
 * in the module's error shape. Registered in `onModuleInit`, after Nest has registered every
 * route and before its own not-found handler, so it only ever sees requests nothing else served,
 * and only on the module's paths: the host's 404s and error handling stay its own.
 */
@Injectable()
export class RestapRouteFallback implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly paths: RestapRouteMatcher,
  ) {}

  onModuleInit(): void {
    this.adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.handle(req, res, next));
  }

  private handle(req: Request, res: Response, next: NextFunction): void {
    const match = this.paths.match(req.path);
    if (!match) return next();
    if (match.subpath) return writeDoorError(res, new RouteNotFoundException());
    const allow = ALLOWED_METHODS[match.route];
    if (allow.includes(req.method)) return next(); // served, but a handler passed it on: not ours to answer
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.setHeader('Allow', [...allow, 'OPTIONS'].join(', '));
      res.end();
      return;
    }
    writeDoorError(res, new MethodNotAllowedException(allow));
  }
}
