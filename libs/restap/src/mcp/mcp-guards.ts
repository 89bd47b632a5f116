import { Injectable, type CanActivate } from '@nestjs/common';
import { ApplicationConfig, ModuleRef } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { Request, Response } from 'express';
import { isObservable, lastValueFrom } from 'rxjs';
import { RestapException } from '../exceptions';
import { RestapGuardsRunner } from '../guards/restap-guards.runner';

/** The handler the guards see: the MCP endpoint. */
class McpEndpoint {
  handle(): void {
    // never called: the SDK's handler answers
  }
}

/**
 * The host's auth on the MCP endpoint, as on /talk and /news: the host's global guards, then the
 * `guards` option (the rate limit ran before, in the door). The endpoint is served by the SDK's handler,
 * outside Nest's router, so they run here on an execution context of the request. A guard that
 * throws rejects the request with its error (e.g. 401 with `WWW-Authenticate`); one that returns
 * false, 403. Each tool call then meets the capability's own guards again, through the invoker.
 */
@Injectable()
export class McpGuards {
  private guards?: Promise<CanActivate[]>;

  constructor(
    private readonly config: ApplicationConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Resolves when the request may pass; rejects with the guard's error otherwise. */
  async check(req: Request, res: Response): Promise<void> {
    const context = new ExecutionContextHost([req, res, () => undefined], McpEndpoint, McpEndpoint.prototype.handle);
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
