// A real OAuth 2.1 authorization server for the e2e tests: oidc-provider (panva) on loopback, with
// client credentials and resource indicators issuing JWT access tokens (RFC 9068) whose `aud` is
// the resource the client asked for. Run as a child process (oidc-provider is ESM-only); it prints
// one line of JSON {"issuer": "..."} once it listens, rotates its signing key on a "rotate" line
// (answering "rotated"), and stops when its stdin closes.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;
const SCOPES = ['text:reverse', 'text:echo'];

/** A fresh RS256 signing key (a new kid each time). */
async function signingKey(kid) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

const configuration = (key) => ({
  jwks: { keys: [key] },
  clients: [
    // May ask for every scope.
    { client_id: 'agent-client', client_secret: 'agent-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPES.join(' ') },
    // Its tokens live one second (expiry tests).
    { client_id: 'short-client', client_secret: 'short-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPES.join(' ') },
    // Its tokens live three seconds (streams that end when their token expires).
    { client_id: 'brief-client', client_secret: 'brief-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPES.join(' ') },
    // Its tokens are opaque (RFC 7662 introspection tests).
    { client_id: 'opaque-client', client_secret: 'opaque-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: SCOPES.join(' ') },
    // The agent itself, as a resource server that introspects tokens.
    { client_id: 'agent-rs', client_secret: 'agent-rs-secret', grant_types: [], redirect_uris: [], response_types: [] },
    // A public client (PKCE, no secret) signing a user in with the authorization code flow.
    { client_id: 'mcp-app', grant_types: ['authorization_code', 'refresh_token'], redirect_uris: ['http://127.0.0.1:1/callback'], response_types: ['code'], token_endpoint_auth_method: 'none', scope: [...SCOPES, 'offline_access'].join(' ') },
    // Never gets text:reverse.
    { client_id: 'echo-client', client_secret: 'echo-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'text:echo' },
    // Clients a test names (OIDC_EXTRA_CLIENTS, JSON): e.g. the playground's public client, whose
    // redirect URI is the agent's page; its origin may then call the token endpoint (oidc-provider's
    // default clientBasedCORS for public clients).
    ...JSON.parse(process.env.OIDC_EXTRA_CLIENTS || '[]'),
  ],
  scopes: ['openid', 'offline_access', ...SCOPES],
  ttl: { ClientCredentials: (_ctx, _token, client) => ({ 'short-client': 1, 'brief-client': 3 })[client.clientId] ?? 600 },
  features: {
    // The development login and consent pages: any login name signs in (the tests post the forms).
    devInteractions: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      // Any resource the client names becomes the token's audience, with the scopes it may ask for.
      getResourceServerInfo: (_ctx, resourceIndicator, client) =>
        client.clientId === 'opaque-client'
          ? { scope: SCOPES.join(' '), audience: resourceIndicator, accessTokenFormat: 'opaque' }
          : { scope: SCOPES.join(' '), audience: resourceIndicator, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } },
    },
  },
});

let generation = 1;
let handler;
async function start() {
  const provider = new Provider(issuer, configuration(await signingKey(`key-${generation}`)));
  provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider: ${error.message}\n`));
  handler = provider.callback();
}
await start();
server.on('request', (req, res) => handler(req, res));
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', async (line) => {
  if (line.trim() !== 'rotate') return;
  generation += 1;
  await start(); // the old key is gone from the JWKS: tokens it signed no longer verify
  process.stdout.write('rotated\n');
});
lines.on('close', () => server.close(() => process.exit(0)));
