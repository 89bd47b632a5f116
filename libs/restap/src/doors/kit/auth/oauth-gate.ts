import type { Request } from 'express';
import type { RestapException } from '../../../exceptions/restap.exception';

/**
 * The token of the OAuth resource (`auth.oauth`): `null` without OAuth. Its class
 * (`oauth-resource.ts`, with `jose` and the MCP SDK's auth helpers) is loaded only when OAuth is
 * on, so an agent without it loads neither.
 */
export const OAUTH_RESOURCE = Symbol('OAUTH_RESOURCE');

/** The well-known path of the protected resource metadata (RFC 9728). */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** What the module reads of the authorization server's metadata. */
export interface AuthorizationServerInfo {
  issuer: string;
  jwks_uri?: string;
  token_endpoint?: string;
  authorization_endpoint?: string;
  introspection_endpoint?: string;
  grant_types_supported?: string[];
}

/** What the doors use of the OAuth resource (see OAuthResource). */
export interface OAuthGate {
  /** RFC 9728 metadata URL, the one every 401 names. */
  readonly metadataUrl: string;
  /** The protected resource metadata document, serialized. */
  document(): { body: string };
  /**
   * Verifies the request's bearer token and ties its caller to the request; rejects with 401/503.
   * Undefined when the caller was tied at once (a token verified lately, remembered).
   */
  authenticate(req: Request): Promise<void> | undefined;
  /** 403 insufficient_scope with the step-up challenge for `scopes`. */
  insufficientScope(scopes: readonly string[], message: string): RestapException;
  /** The authorization server's metadata (for the A2A card). */
  serverMetadata(): Promise<AuthorizationServerInfo>;
}
