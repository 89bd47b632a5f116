import { Logger } from '@nestjs/common';
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type OAuthMetadata,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, customFetch, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Request } from 'express';
import type { ResolvedRestapOAuthOptions, ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { AuthUnavailableException, InsufficientScopeException, InvalidTokenException } from '../../../exceptions';
import { RestapBootstrapError } from '../../../exceptions/restap-bootstrap.error';
import type { RestapRegistry } from '../../../core/registry/restap.registry';
import { requiredScopesOf } from '../../../core/auth/capability-scopes';
import { logLine } from '../http/log-line';
import type { AuthorizationServerInfo, OAuthGate } from './oauth-gate';
import { signedAs, signingInputOf, tokenKeyOf, VerifiedTokenMemo } from './verified-token-memo';
import { bearerJwtOf, tieRemembered, tieVerified, verifiedCallerOf, type VerifiedCaller, type VerifiedInfo } from './verified-caller';

/** How long the authorization server's metadata is kept before it is read again, ms. */
const DISCOVERY_TTL_MS = 60 * 60_000;
/** After a JWKS fetch, how long before a token with an unknown `kid` may fetch it again, ms (key rotation). */
const JWKS_COOLDOWN_MS = 5_000;
/** After a failed discovery, how long before the next try, ms (a burst of requests makes one fetch). */
const DISCOVERY_RETRY_MS = 5_000;

/**
 * The agent as an OAuth 2.1 protected resource, for every door: it verifies bearer access tokens
 * (JWTs, with `jose`: the issuer's JWKS found through its RFC 8414 / OpenID discovery, cached,
 * refetched on an unknown key id; `iss`, `aud` = the agent's resource URL, `exp`/`nbf`, the
 * algorithm allow-list), builds the `WWW-Authenticate` challenges with the MCP SDK's bearer-auth
 * helpers, and serves the protected resource metadata (RFC 9728) built with the SDK's
 * `buildOAuthProtectedResourceMetadata`. Present only when `auth.oauth` is set; tokens are never
 * logged or stored.
 */
export class OAuthResource implements OAuthTokenVerifier, OAuthGate {
  private readonly logger = new Logger('Restap');
  private readonly oauth: ResolvedRestapOAuthOptions;
  /** The token audiences accepted: the resource URL as configured, and with/without the root path's slash. */
  private readonly audiences: string[];
  /** RFC 9728 metadata URL, the one every 401 names. */
  readonly metadataUrl: string;
  private metadata?: { body: string; document: OAuthProtectedResourceMetadata };
  private keys?: { get: JWTVerifyGetKey; at: number };
  private discovery?: Promise<JWTVerifyGetKey>;
  private server?: Promise<AuthorizationServerInfo>;
  private failedAt = 0;
  /** JWTs verified lately, by their hash (never the token): a client's repeated token is checked once (see VerifiedTokenMemo). */
  private readonly verified = new VerifiedTokenMemo<VerifiedCaller>();
  /** Moves when a JWKS fetch starts and again once its key set is in use: a memoised verification is of one key set. */
  private keysEpoch = 0;

  constructor(
    options: ResolvedRestapCoreOptions,
    private readonly registry: RestapRegistry,
  ) {
    if (!options.auth.oauth) throw new RestapBootstrapError('OAuthResource needs auth.oauth.');
    this.oauth = options.auth.oauth;
    const resource = new URL(this.oauth.audience);
    this.audiences = [...new Set([this.oauth.audience, resource.href, ...(resource.pathname === '/' ? [resource.href.slice(0, -1)] : [])])];
    this.metadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  }

  /** The protected resource metadata: the resource, its authorization server, scopes and bearer methods. */
  document(): { body: string; document: OAuthProtectedResourceMetadata } {
    if (this.metadata) return this.metadata;
    let document: OAuthProtectedResourceMetadata;
    try {
      document = buildOAuthProtectedResourceMetadata({
        oauthMetadata: { issuer: this.oauth.issuer } as OAuthMetadata,
        resourceServerUrl: new URL(this.oauth.audience),
        scopesSupported: this.scopesSupported(),
        resourceName: undefined,
      });
    } catch (error) {
      throw new RestapBootstrapError(`RestapModule option auth.oauth.issuer: ${(error as Error).message} (http is allowed on localhost and 127.0.0.1 only).`);
    }
    document = { ...document, bearer_methods_supported: ['header'] };
    const clean = Object.fromEntries(Object.entries(document).filter(([, v]) => v !== undefined)) as OAuthProtectedResourceMetadata;
    this.metadata = { body: JSON.stringify(clean), document: clean };
    return this.metadata;
  }

  /** The scopes a capability requires, gathered (or `auth.oauth.scopesSupported`). */
  private scopesSupported(): string[] | undefined {
    if (this.oauth.scopesSupported) return this.oauth.scopesSupported;
    const options = { auth: { oauth: this.oauth } } as ResolvedRestapCoreOptions;
    const scopes = new Set(this.registry.getCapabilities().flatMap((c) => requiredScopesOf(c, options)));
    return scopes.size ? [...scopes] : undefined;
  }

  /**
   * Verifies the request's `Authorization: Bearer` token and ties the verified caller to the request
   * (`req.auth`: the MCP SDK's AuthInfo; `req.user`: the claims, as Passport users expect; the
   * caller's `auth` for the core). Rejects with 401 (none or a bad token, `WWW-Authenticate` naming
   * the metadata) or 503 (the issuer's keys could not be fetched). A JWT verified lately (remembered,
   * not expired, of the key set in use: see VerifiedTokenMemo) is tied at once: undefined, no promise.
   */
  authenticate(req: Request): Promise<void> | undefined {
    const header = req.headers.authorization;
    const token = bearerJwtOf(header);
    const known = token === undefined ? undefined : this.verified.get(tokenKeyOf(token), this.keysEpoch);
    if (known === undefined || !signedAs(token!, known.signed)) return this.verify(req, header);
    tieRemembered(req, known, token!, this.metadataUrl);
    return undefined;
  }

  /** The SDK's path: `verifyBearerToken` (header, verifier, expiry), then the caller tied to the request. */
  private async verify(req: Request, header: string | undefined): Promise<void> {
    let info: AuthInfo;
    try {
      info = await verifyBearerToken(header, { verifier: this, resourceMetadataUrl: this.metadataUrl });
    } catch (error) {
      throw this.refusal(error, header === undefined);
    }
    tieVerified(req, info);
  }

  /** The SDK's verifier: a JWT, checked with jose against the issuer's keys; an opaque token, by introspection when configured. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    if (token.split('.').length !== 3) {
      if (!this.oauth.introspection) throw new OAuthError(OAuthErrorCode.InvalidToken, 'it is not a JWT access token');
      return this.introspect(token, this.oauth.introspection);
    }
    const key = tokenKeyOf(token);
    const epoch = this.keysEpoch;
    const known = this.verified.get(key, epoch);
    if (known && signedAs(token, known.signed)) return { ...known.info, token };
    const keys = await this.keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.oauth.issuer,
        audience: this.audiences,
        algorithms: this.oauth.algorithms,
        clockTolerance: this.oauth.clockTolerance,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || (error instanceof TypeError && !(error instanceof joseErrors.JOSEError))) {
        throw new AuthUnavailableException('The authorization server\'s keys could not be fetched; try again shortly.');
      }
      throw new OAuthError(OAuthErrorCode.InvalidToken, describe(error));
    }
    const scope = payload.scope ?? payload.scp;
    const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : Array.isArray(scope) ? scope.filter((s): s is string => typeof s === 'string') : [];
    const clientId = [payload.client_id, payload.azp, payload.sub].find((v): v is string => typeof v === 'string') ?? 'unknown';
    // Shared by every request that sends this token while it is remembered: frozen.
    const verified: VerifiedInfo = Object.freeze({
      clientId,
      scopes: Object.freeze(scopes) as string[],
      expiresAt: payload.exp,
      resource: new URL(this.oauth.audience),
      extra: Object.freeze({ iss: payload.iss, ...(payload.sub ? { sub: payload.sub } : {}), claims: Object.freeze(payload) }),
    });
    // Verified against a key set fetched meanwhile, or the one before it: not remembered.
    if (this.keysEpoch === epoch) this.verified.set(key, verifiedCallerOf(verified, signingInputOf(token)), payload.exp!, this.oauth.jwksCacheMaxAgeMs, epoch);
    return { ...verified, token };
  }

  /** RFC 7662: the issuer says whether an opaque token is active, and for whom and what. */
  private async introspect(token: string, client: { clientId: string; clientSecret: string; endpoint?: string }): Promise<AuthInfo> {
    let endpoint = client.endpoint;
    if (!endpoint) {
      try {
        endpoint = (await this.serverMetadata()).introspection_endpoint;
      } catch {
        throw new AuthUnavailableException('The authorization server\'s metadata could not be read; try again shortly.');
      }
      if (!endpoint) throw new AuthUnavailableException('The authorization server names no introspection_endpoint: opaque tokens cannot be checked.');
    }
    // RFC 6749 §2.3.1: the credentials are form-encoded before they are joined for Basic.
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString('base64');
    let answer: Record<string, unknown>;
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(5_000),
        redirect: 'error',
      });
      if (!response.ok) throw new Error(`the introspection endpoint answered ${response.status}`);
      answer = (await response.json()) as Record<string, unknown>;
    } catch (error) {
      this.logger.warn(logLine(`OAuth: introspection failed: ${(error as Error)?.message ?? String(error)}`));
      throw new AuthUnavailableException('The access token could not be checked now; try again shortly.');
    }
    if (answer.active !== true) throw new OAuthError(OAuthErrorCode.InvalidToken, 'it is not active');
    if (answer.iss !== undefined && answer.iss !== this.oauth.issuer) throw new OAuthError(OAuthErrorCode.InvalidToken, 'it was issued by another authorization server');
    const aud = Array.isArray(answer.aud) ? answer.aud : [answer.aud];
    if (!aud.some((a) => typeof a === 'string' && this.audiences.includes(a))) throw new OAuthError(OAuthErrorCode.InvalidToken, 'it was issued for another audience');
    if (typeof answer.nbf === 'number' && answer.nbf > Date.now() / 1000 + this.oauth.clockTolerance) throw new OAuthError(OAuthErrorCode.InvalidToken, 'it is not valid yet');
    const scopes = typeof answer.scope === 'string' ? answer.scope.split(' ').filter(Boolean) : [];
    const clientId = [answer.client_id, answer.sub].find((v): v is string => typeof v === 'string') ?? 'unknown';
    const sub = typeof answer.sub === 'string' ? answer.sub : undefined;
    return {
      token,
      clientId,
      scopes,
      ...(typeof answer.exp === 'number' ? { expiresAt: answer.exp } : {}),
      resource: new URL(this.oauth.audience),
      extra: { iss: this.oauth.issuer, ...(sub ? { sub } : {}), claims: answer },
    };
  }

  /** 403 insufficient_scope with the step-up challenge for `scopes`. */
  insufficientScope(scopes: readonly string[], message: string): InsufficientScopeException {
    const challenge = this.challengeOf(new OAuthError(OAuthErrorCode.InsufficientScope, 'Insufficient scope'), scopes);
    return new InsufficientScopeException(message, challenge);
  }

  private refusal(error: unknown, missing: boolean): Error {
    if (error instanceof AuthUnavailableException) return error;
    if (error instanceof OAuthError && error.code === OAuthErrorCode.InvalidToken) {
      if (missing) return new InvalidTokenException('unauthorized', `This endpoint needs an OAuth access token (Authorization: Bearer …); see ${this.metadataUrl} for the authorization server.`, this.challengeOf(undefined, []));
      return new InvalidTokenException('invalid_token', `The access token was refused: ${error.message}.`, this.challengeOf(error, []));
    }
    this.logger.warn(logLine(`OAuth: a token could not be checked: ${(error as Error)?.message ?? String(error)}`));
    return new AuthUnavailableException('The access token could not be checked now; try again shortly.');
  }

  /**
   * The `WWW-Authenticate` value the SDK's `bearerAuthChallengeResponse` builds. Without a token
   * (RFC 6750 §3.1: no error code then) only `resource_metadata` (and `scope` when asked).
   */
  private challengeOf(error: OAuthError | undefined, scopes: readonly string[]): string {
    if (!error) return `Bearer resource_metadata="${this.metadataUrl}"`;
    const response = bearerAuthChallengeResponse(error, { requiredScopes: [...scopes], resourceMetadataUrl: this.metadataUrl });
    return response.headers.get('www-authenticate') ?? `Bearer resource_metadata="${this.metadataUrl}"`;
  }

  /** The issuer's JWKS, found through its metadata (or `jwksUri`), kept for `jwksCacheMaxAgeMs`. */
  private keySet(): Promise<JWTVerifyGetKey> {
    if (this.keys && Date.now() - this.keys.at < DISCOVERY_TTL_MS) return Promise.resolve(this.keys.get);
    if (this.discovery) return this.discovery;
    if (Date.now() - this.failedAt < DISCOVERY_RETRY_MS && !this.keys) {
      return Promise.reject(new AuthUnavailableException('The authorization server\'s metadata could not be read; try again shortly.'));
    }
    this.discovery = this.discover().then(
      (jwksUri) => {
        const get = createRemoteJWKSet(new URL(jwksUri), {
          cacheMaxAge: this.oauth.jwksCacheMaxAgeMs,
          cooldownDuration: JWKS_COOLDOWN_MS,
          timeoutDuration: 5_000,
          // jose fetches through this: the memo's epoch moves when a fetch starts, and again once jose has put the
          // set it read in use (a turn of the event loop after the body: jose applies it a few promise jobs later).
          [customFetch]: async (url: string, init: RequestInit) => {
            this.keysEpoch++;
            try {
              const response = await fetch(url, init);
              const read = response.json.bind(response);
              return Object.assign(response, { json: () => read().finally(() => setImmediate(() => this.keysEpoch++)) });
            } catch (error) {
              setImmediate(() => this.keysEpoch++);
              throw error;
            }
          },
        });
        this.keys = { get, at: Date.now() };
        this.discovery = undefined;
        return get;
      },
      (error: unknown) => {
        this.discovery = undefined;
        this.failedAt = Date.now();
        this.logger.warn(logLine(`OAuth: the metadata of ${this.oauth.issuer} could not be read: ${(error as Error)?.message ?? String(error)}`));
        // A stale key set still verifies tokens while the issuer's metadata is out of reach.
        if (this.keys) return this.keys.get;
        throw new AuthUnavailableException('The authorization server\'s metadata could not be read; try again shortly.');
      },
    );
    return this.discovery;
  }

  /**
   * The authorization server's metadata (RFC 8414 or OpenID discovery): where its endpoints are,
   * for the A2A card's oauth2 scheme. Read once; a failure is forgotten so the next call tries again.
   */
  serverMetadata(): Promise<AuthorizationServerInfo> {
    return (this.server ??= this.fetchMetadata().catch((error: unknown) => {
      this.server = undefined;
      throw error;
    }));
  }

  /** The JWKS URL: `jwksUri`, else the issuer's metadata's. */
  private async discover(): Promise<string> {
    if (this.oauth.jwksUri) return this.oauth.jwksUri;
    const metadata = await this.serverMetadata();
    if (typeof metadata.jwks_uri !== 'string') throw new Error(`the metadata of ${this.oauth.issuer} has no jwks_uri`);
    return metadata.jwks_uri;
  }

  /** RFC 8414 first (`/.well-known/oauth-authorization-server`, path-aware), then OpenID discovery. */
  private async fetchMetadata(): Promise<AuthorizationServerInfo> {    const issuer = new URL(this.oauth.issuer);
    const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
    const candidates = [
      new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
      new URL(`${path}/.well-known/openid-configuration`, issuer.origin),
    ];
    let last = 'no metadata';
    for (const url of candidates) {
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5_000), redirect: 'error' });
      if (!response.ok) {
        last = `${url.href} answered ${response.status}`;
        continue;
      }
      const metadata = (await response.json()) as AuthorizationServerInfo;
      if (metadata.issuer !== this.oauth.issuer) throw new Error(`${url.href} names the issuer ${JSON.stringify(metadata.issuer)}, not ${this.oauth.issuer}`);
      return metadata;
    }
    throw new Error(last);
  }
}

/** jose's reason, in words a client can act on (never the token). */
function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'it has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'it was issued for another audience';
    if (error.claim === 'iss') return 'it was issued by another authorization server';
    return `its "${error.claim}" claim is not valid (${error.reason})`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'its signing algorithm is not accepted';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'no key of the authorization server signed it';
  if (error instanceof joseErrors.JOSEError) return 'it is not a valid JWT access token';
  return 'it could not be verified';
}
