import { RestapException } from './restap.exception';

/**
 * 401 for a request without a valid OAuth access token (RFC 6750): `WWW-Authenticate: Bearer
 * resource_metadata="…"` names the protected resource metadata (RFC 9728), where a client finds the
 * authorization server. `error` is `invalid_token` for a token that was refused, `unauthorized` when none was sent.
 */
export class InvalidTokenException extends RestapException {
  constructor(code: 'invalid_token' | 'unauthorized', message: string, challenge: string) {
    super(401, code, message, { 'WWW-Authenticate': challenge, 'Cache-Control': 'no-store' });
  }
}

/** 403 `insufficient_scope`: the token lacks a scope; `WWW-Authenticate` names the scopes to ask for (step-up). */
export class InsufficientScopeException extends RestapException {
  constructor(message: string, challenge: string) {
    super(403, 'insufficient_scope', message, { 'WWW-Authenticate': challenge, 'Cache-Control': 'no-store' });
  }
}

/** 503: the authorization server's metadata or keys could not be fetched, so no token can be checked now. */
export class AuthUnavailableException extends RestapException {
  constructor(message: string) {
    super(503, 'auth_unavailable', message, { 'Retry-After': '5' });
  }
}
