import { Injectable, type CanActivate, type Type } from '@nestjs/common';
import { ApplicationConfig, ModuleRef } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { Request, Response } from 'express';
import { isObservable, lastValueFrom } from 'rxjs';
import { RestapException } from '../../../exceptions';
import { RestapGuardsRunner } from './restap-guards.runner';

/** A door's endpoint as its guards see it (`context.getClass()` / `getHandler()`); never called. */
export interface DoorEndpoint {
  handle(): void;
}

/**
 * The host's auth on a door served outside Nest's router (an SDK's Express handler: MCP, A2A), as
 * on /talk and /news: the host's global guards, then the `guards` option. They run here on an
 * execution context of the request whose class is the door's endpoint. A guard that throws rejects
 * the request with its error (e.g. 401 with `WWW-Authenticate`); one that returns false, 403.
 */
@Injectable()
export class DoorGuards {
  private guards?: Promise<CanActivate[]>;

  constructor(
    private readonly config: ApplicationConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Resolves when the request may pass; rejects with the guard's error otherwise. */
  async check(req: Request, res: Response, endpoint: Type<DoorEndpoint>): Promise<void> {
    const context = new ExecutionContextHost([req, res, () => undefined], endpoint, endpoint.prototype.handle);
    context.setType('http');
    for (const guard of await (this.guards ??= this.resolve())) {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (!allowed) throw new RestapException(403, 'forbidden', 'Forbidden resource.');
    }
  }

  /** Created with the module's injector, as Nest creates the guards of /talk's controller. */
  private async resolve(): Promise<CanActivate[]> {
    return [...this.config.getGlobalGuards(), await this.moduleRef.create(RestapGuardsRunner)];
  }
}
