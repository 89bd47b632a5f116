import { Inject, Injectable, type CanActivate, type Type } from '@nestjs/common';
import { ApplicationConfig, ModuleRef } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { Request, Response } from 'express';
import { isObservable, lastValueFrom } from 'rxjs';
import { RestapException } from '../../../exceptions';
import { RestapGuardsRunner } from './restap-guards.runner';
import { RESTAP_ROUTE_DECORATORS } from '../../../restap.constants';

/** A door's endpoint as its guards see it (`context.getClass()` / `getHandler()`); never called. */
export interface DoorEndpoint {
  handle(): void;
}

/**
 * The host's auth on a door served outside Nest's router (an SDK's Express handler: MCP, A2A), as
 * on /talk and /news: the host's global guards, then the `guards` option. They run here on an
 * execution context of the request whose class is the door's endpoint. A guard that throws rejects
 * the request with its error (e.g. 401 with `WWW-Authenticate`); one that returns false, 403.
 * The `routeDecorators` extra decorates the endpoint class the guards see (a subclass made once per
 * endpoint, so the door's own class stays bare), so a global guard honouring `@Public()` reads it
 * through `reflector.getAllAndOverride(key, [context.getHandler(), context.getClass()])`.
 */
@Injectable()
export class DoorGuards {
  private guards?: Promise<CanActivate[]>;
  private readonly decorated = new Map<Type<DoorEndpoint>, Type<DoorEndpoint>>();

  constructor(
    private readonly config: ApplicationConfig,
    private readonly moduleRef: ModuleRef,
    @Inject(RESTAP_ROUTE_DECORATORS) private readonly routeDecorators: ClassDecorator[],
  ) {}

  /** Resolves when the request may pass; rejects with the guard's error otherwise. */
  async check(req: Request, res: Response, door: Type<DoorEndpoint>): Promise<void> {
    const endpoint = this.endpointOf(door);
    const context = new ExecutionContextHost([req, res, () => undefined], endpoint, endpoint.prototype.handle);
    context.setType('http');
    for (const guard of await (this.guards ??= this.resolve())) {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (!allowed) throw new RestapException(403, 'forbidden', 'Forbidden resource.');
    }
  }

  /** The door's endpoint class, or once `routeDecorators` are given, a subclass of it carrying them. */
  private endpointOf(door: Type<DoorEndpoint>): Type<DoorEndpoint> {
    if (!this.routeDecorators.length) return door;
    let endpoint = this.decorated.get(door);
    if (!endpoint) {
      endpoint = { [door.name]: class extends door {} }[door.name];
      for (const decorate of this.routeDecorators) decorate(endpoint);
      this.decorated.set(door, endpoint);
    }
    return endpoint;
  }

  /** Created with the module's injector, as Nest creates the guards of /talk's controller. */
  private async resolve(): Promise<CanActivate[]> {
    return [...this.config.getGlobalGuards(), await this.moduleRef.create(RestapGuardsRunner)];
  }
}
