/** Key of the OAuth extension under the RESTAP catalog's top-level `extensions`. */
export const OAUTH_EXTENSION = 'io.restap/oauth';

/**
 * What the catalog says of OAuth (`auth.oauth`): where the protected resource metadata (RFC 9728)
 * is, which names the authorization server(s) and scopes. The RESTAP spec has no auth field; its
 * extension mechanism (`extensions`, unknown fields ignored by clients) carries it, so a client
 * (the playground among them) finds the sign-in before its first 401.
 */
export interface OAuthExtensionEntry {
  version: '1';
  description: string;
  /** The RFC 9728 metadata URL, the same one every 401's `WWW-Authenticate: Bearer resource_metadata` names. */
  resource_metadata: string;
  /** The resource identifier (RFC 8707) tokens must be issued for: the metadata's `resource`. */
  resource: string;
  /** How a token is sent (RFC 6750 §2.1 only). */
  bearer_methods_supported: ['header'];
}

/** The extension entry for a resource whose metadata is at `metadataUrl`. */
export function oauthExtensionEntry(metadataUrl: string, resource: string): OAuthExtensionEntry {
  return {
    version: '1',
    description:
      'Every door (talk, news, capabilities, MCP, A2A, AG-UI) needs an OAuth 2.1 access token for this resource, sent as Authorization: Bearer. resource_metadata (RFC 9728) names the authorization server and the scopes.',
    resource_metadata: metadataUrl,
    resource,
    bearer_methods_supported: ['header'],
  };
}
