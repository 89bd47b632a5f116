import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { RegisteredCapability } from '../registry/restap.registry';
import type { RestapCaller } from '../caller';
import { failure } from '../invoker/invocation-error';
import type { InvocationResult } from '../invoker/invocation-result';

const NONE: readonly string[] = Object.freeze([]);

/**
 * The OAuth scopes a capability needs: its `@Capability({ scopes })` and
 * `auth.oauth.requiredScopes[id]`. None when OAuth is off: the rule then costs nothing.
 */
export function requiredScopesOf(capability: RegisteredCapability, options: ResolvedRestapCoreOptions): readonly string[] {
  const oauth = options.auth.oauth;
  if (!oauth) return NONE;
  const own = capability.options.scopes ?? NONE;
  const configured = oauth.requiredScopes[capability.options.id] ?? NONE;
  if (!configured.length) return own;
  if (!own.length) return configured;
  return [...new Set([...own, ...configured])];
}

/**
 * The scopes of `required` the caller's token lacks. A caller without a verified token (OAuth off,
 * or an in-process call with no door behind it) is judged by the host's guards, not here.
 */
export function missingScopes(required: readonly string[], caller: RestapCaller): string[] {
  if (!required.length || caller.auth === undefined) return [];
  const held = caller.auth.scopes;
  return required.filter((scope) => !held.includes(scope));
}

/** True when the caller may call the capability (every door's lists show only those). */
export function mayCall(capability: RegisteredCapability, caller: RestapCaller, options: ResolvedRestapCoreOptions): boolean {
  return missingScopes(requiredScopesOf(capability, options), caller).length === 0;
}

/** 403 `insufficient_scope` naming the scopes to ask for (step-up), or undefined when the caller has them. */
export function scopeRefusal(capability: RegisteredCapability, caller: RestapCaller, options: ResolvedRestapCoreOptions): InvocationResult | undefined {
  const required = requiredScopesOf(capability, options);
  const missing = missingScopes(required, caller);
  if (!missing.length) return undefined;
  return failure(403, 'insufficient_scope', `${capability.options.id} needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(' ')}: ask the authorization server for a token with scope "${required.join(' ')}".`);
}
