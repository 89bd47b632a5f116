import { CanActivate, ExecutionContext, Inject, Injectable, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { RESTAP_OPTIONS } from '../restap.constants';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';

/**
 * Runs the `guards` option on the module's /talk and /news routes, in order, after the host's
 * global guards (Nest runs global guards before controller guards). Each guard is the host's
 * provider when one is registered (so it keeps its dependencies), else an instance the module
 * creates. A guard that returns false gives 403 forbidden; one that throws answers with its error.
 */
@Injectable()
export class RestapGuardsRunner implements CanActivate {
  private guards?: Promise<CanActivate[]>;

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    // Without the option (the usual case) every request passes at once: no promise to await.
    return this.options.guards.length ? this.run(context) : true;
  }

  private async run(context: ExecutionContext): Promise<boolean> {
    for (const guard of await (this.guards ??= this.resolve())) {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (!allowed) return false;
    }
    return true;
  }

  private resolve(): Promise<CanActivate[]> {
    return Promise.all(this.options.guards.map((type) => this.instanceOf(type)));
  }

  private async instanceOf(type: Type<CanActivate>): Promise<CanActivate> {
    try {
      return this.moduleRef.get(type, { strict: false });
    } catch {
      return this.moduleRef.create(type);
    }
  }
}
