import type { RestapCaller } from '../../core/caller';
import { RestapException } from '../../exceptions';
import type { ResolvedRestapA2aOptions, RestapA2aSecurityScheme } from './a2a.options';

/** GetExtendedAgentCard on JSON-RPC: 1.0's name and 0.3's. */
const CARD_METHODS = new Set(['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);

/** True for a JSON-RPC call of GetExtendedAgentCard. */
export function isCardMethod(body: unknown): boolean {
  const method = (body as { method?: unknown } | undefined)?.method;
  return typeof method === 'string' && CARD_METHODS.has(method);
}

/** GetExtendedAgentCard on HTTP+JSON: `GET /extendedAgentCard` (1.0, optionally under a tenant), `GET /v1/card` (0.3). */
export function isCardRoute(subPath: string): boolean {
  return /^(?:\/[^/]+)?\/extendedAgentCard$/.test(subPath) || subPath === '/v1/card';
}

/** The `WWW-Authenticate` challenges of the card's schemes (a 401 must name at least one). */
function challengeOf(schemes: Record<string, RestapA2aSecurityScheme>): string {
  const challenges = Object.values(schemes).map((scheme) =>
    scheme.type === 'http'
      ? `${scheme.scheme.charAt(0).toUpperCase()}${scheme.scheme.slice(1)} realm="a2a"`
      : scheme.type === 'apiKey'
        ? `ApiKey realm="a2a", in="${scheme.in}", name="${scheme.name}"`
        : 'Bearer realm="a2a"',
  );
  return [...new Set(challenges)].join(', ') || 'Bearer realm="a2a"';
}

/**
 * GetExtendedAgentCard needs an authenticated caller (A2A 1.0, 3.1.11 and 13.3: "MUST require
 * authentication", by a scheme the public card declares). With `auth.oauth` every request on the
 * door carries a verified token already; otherwise a caller is authenticated when it presented
 * credentials (what `a2a.identify` reads: `Authorization`, else `X-API-Key`) and the host's guards,
 * which check them, let it through. Without credentials: 401 unauthorized with a challenge for the
 * card's schemes, the spec's authentication error (3.3.2: HTTP 401), answered before the SDK — the
 * SDK has no error for it and would answer -32603. Undefined when the caller may have the card.
 */
export function anonymousCardRefusal(caller: RestapCaller, a2a: Pick<ResolvedRestapA2aOptions, 'identify' | 'securitySchemes'>): RestapException | undefined {
  if (caller.auth !== undefined || a2a.identify(caller) !== undefined) return undefined;
  const names = Object.keys(a2a.securitySchemes).join(', ') || 'oauth2';
  return new RestapException(401, 'unauthorized', `The extended agent card is for authenticated callers: send credentials by one of the card's securitySchemes (${names}).`, {
    'WWW-Authenticate': challengeOf(a2a.securitySchemes),
  });
}
