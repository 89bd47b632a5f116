import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { CALLER_AUTH, callerOf } from '../../../core/caller';
import { RestapRegistry } from '../../../core/registry/restap.registry';
import { missingScopes, requiredScopesOf } from '../../../core/auth/capability-scopes';
import { OAUTH_RESOURCE, type OAuthGate } from './oauth-gate';

/**
 * OAuth on the capabilities' own routes (`POST /text/reverse`), the one door that is the host's
 * controllers: registered as a global guard when `auth.oauth` is on, it verifies the bearer token
 * of a request to a `@Capability()` route (401 naming the metadata) and its scopes (403
 * `insufficient_scope` with the step-up challenge). In-process calls (MCP, A2A, the model's tools)
 * pass it too, with their caller's `Authorization`. Other routes of the host are left to the host.
 */
@Injectable()
export class CapabilityOAuthGuard implements CanActivate {
  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
    @Optional() @Inject(OAUTH_RESOURCE) private readonly resource: OAuthGate | null = null,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const resource = this.resource;
    if (!resource || context.getType() !== 'http') return true;
    const capability = this.registry.getCapabilityOf(context.getClass().name, context.getHandler().name);
    if (!capability) return true;
    const req = context.switchToHttp().getRequest<Request & { [CALLER_AUTH]?: unknown }>();
    const check = (): boolean => {
      const required = requiredScopesOf(capability, this.options);
      const missing = missingScopes(required, callerOf(req));
      if (missing.length) throw resource.insufficientScope(required, `${capability.options.id} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}.`);
      return true;
    };
    if (req[CALLER_AUTH] !== undefined) return check();
    const pending = resource.authenticate(req);
    return pending === undefined ? check() : pending.then(check);
  }
}
