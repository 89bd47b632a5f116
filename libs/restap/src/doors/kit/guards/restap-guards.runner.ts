import { CanActivate, ExecutionContext, Inject, Injectable, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';

/**
 * Runs the `guards` option on the module's /talk and /news routes, in order, after the host's
 * global guards (Nest runs global guards before controller guards). Each guard is the host's
 * provider when one is registered (so it keeps its dependencies), else an instance the module
 * creates. A guard that returns false gives 403 forbidden; one that throws answers with its error.
 */
@Injectable()
export class RestapGuardsRunner implements CanActivate {
  private guards?: Promise<CanActivate[]>;
  private resolved?: CanActivate[];

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    // Without the option every request passes at once; once resolved, guards that answer a
    // boolean are run without a promise per request (the usual case).
    if (!this.options.guards.length) return true;
    if (this.resolved) return this.check(this.resolved, context, 0);
    return (this.guards ??= this.resolve()).then((guards) => this.check((this.resolved = guards), context, 0));
  }

  /** Runs `guards` from `from` on, synchronously while each answers a boolean. */
  private check(guards: CanActivate[], context: ExecutionContext, from: number): boolean | Promise<boolean> {
    for (let i = from; i < guards.length; i++) {
      const verdict = guards[i].canActivate(context);
      if (typeof verdict === 'boolean') {
        if (!verdict) return false;
        continue;
      }
      const allowed = isObservable(verdict) ? lastValueFrom(verdict) : Promise.resolve(verdict);
      return allowed.then((ok) => (ok ? this.check(guards, context, i + 1) : false));
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
