import { Injectable, type CanActivate } from '@nestjs/common';
import { ApplicationConfig, ModuleRef } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { Request, Response } from 'express';
import { isObservable, lastValueFrom } from 'rxjs';
import { RestapException } from '../exceptions';
import { RestapGuardsRunner } from '../guards/restap-guards.runner';

/** The handler the guards see: the A2A endpoint. */
class A2aEndpoint {
  handle(): void {
    // never called: the SDK's JSON-RPC handler answers
  }
}

/**
 * The host's auth on the A2A endpoint, as on /talk and /news: the host's global guards, then the
 * `guards` option (the rate limit is counted earlier, before the body is read). The endpoint is served by the SDK's Express
 * handler, outside Nest's router, so they are run here on an execution context of the request.
 * A guard that throws rejects the request with its error; one that returns false, 403.
 */
@Injectable()
export class A2aGuards {
  private guards?: Promise<CanActivate[]>;

  constructor(
    private readonly config: ApplicationConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Resolves when the request may pass; rejects with the guard's error otherwise. */
  async check(req: Request, res: Response): Promise<void> {
    const context = new ExecutionContextHost([req, res, () => undefined], A2aEndpoint, A2aEndpoint.prototype.handle);
    context.setType('http');
    for (const guard of await (this.guards ??= this.resolve())) {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (!allowed) throw new RestapException(403, 'forbidden', 'Forbidden resource.');
    }
  }

  /** The runner is created with the module's injector, as Nest creates the guards of /talk's controller. */
  private async resolve(): Promise<CanActivate[]> {
    return [...this.config.getGlobalGuards(), await this.moduleRef.create(RestapGuardsRunner)];
  }
}
