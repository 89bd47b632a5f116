// Signing in with OAuth 2.1 (authorization code + PKCE S256, RFC 6749 / 7636 / 8707 / 9207), as a
// public client. Discovery: the catalog's extension io.restap/oauth names the protected resource
// metadata (RFC 9728), which names the authorization server, whose metadata (RFC 8414, else OpenID
// discovery) names its endpoints. The token lives in this tab's memory only (http.js); only the
// PKCE verifier and state wait in sessionStorage across the redirect, and leave it on return.
// Crypto: WebCrypto's random values and SHA-256, nothing else.
import { note } from './http.js';

export const OAUTH_EXTENSION = 'io.restap/oauth';
const PENDING_KEY = 'restap-playground:sign-in';

/** The catalog's OAuth entry, or undefined when the agent takes no OAuth tokens. */
export function oauthEntryOf(catalog) {
  const entry = catalog?.extensions?.[OAUTH_EXTENSION];
  return entry && typeof entry.resource_metadata === 'string' && typeof entry.resource === 'string' ? entry : undefined;
}

/**
 * Follows the chain to the authorization server: { issuer, authorizationEndpoint, tokenEndpoint,
 * resource, scope, issParameter } (scope: the metadata's scopes_supported, what a first sign-in asks
 * for, as MCP's scope selection says when the 401 names none). Throws with what is wrong.
 */
export async function discover(entry) {
  const prm = await getJson(entry.resource_metadata);
  // RFC 9728 §3.3: the metadata must be for the resource the catalog named.
  if (prm.resource !== entry.resource) throw new Error(`the protected resource metadata is for ${prm.resource}, not ${entry.resource}`);
  const issuer = Array.isArray(prm.authorization_servers) ? prm.authorization_servers[0] : undefined;
  if (typeof issuer !== 'string') throw new Error('the protected resource metadata names no authorization server');
  const as = await serverMetadata(issuer);
  if (typeof as.authorization_endpoint !== 'string' || typeof as.token_endpoint !== 'string') throw new Error(`${issuer} names no authorization or token endpoint`);
  // OAuth 2.1 / MCP: no sign-in with a server that does not say it takes S256.
  if (!Array.isArray(as.code_challenge_methods_supported) || !as.code_challenge_methods_supported.includes('S256')) {
    throw new Error(`${issuer} does not list PKCE S256 in code_challenge_methods_supported`);
  }
  const scopes = Array.isArray(prm.scopes_supported) ? prm.scopes_supported.filter((s) => typeof s === 'string') : [];
  return {
    issuer,
    authorizationEndpoint: as.authorization_endpoint,
    tokenEndpoint: as.token_endpoint,
    resource: prm.resource,
    scope: scopes.join(' '),
    issParameter: as.authorization_response_iss_parameter_supported === true,
  };
}

/** RFC 8414 (path-aware) first, then OpenID discovery; its `issuer` must be the one named. */
async function serverMetadata(issuer) {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const candidates = [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
  let last;
  for (const candidate of candidates) {
    let metadata;
    try {
      metadata = await getJson(candidate);
    } catch (error) {
      last = error;
      continue;
    }
    // A document for another issuer ends the search (RFC 8414 §3.3): no fallback past a mismatch.
    if (metadata.issuer !== issuer) throw new Error(`${candidate} names the issuer ${metadata.issuer}, not ${issuer}`);
    return metadata;
  }
  throw last;
}

async function getJson(url) {
  note('request', `GET ${url}`);
  // No credential goes to these (http.js adds none: plain fetch), and no cookie either.
  const response = await fetch(url, { headers: { Accept: 'application/json' }, credentials: 'omit', cache: 'no-store' });
  note('response', `${response.status} ${response.statusText} ${response.headers.get('content-type') ?? ''}`);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

/** Where the server sends the browser back: the playground page itself, as registered for the client. */
export function redirectUri(basePath) {
  return `${location.origin}${basePath}`;
}

/**
 * Starts the sign-in: PKCE verifier and state kept for the return, then off to the authorization
 * endpoint. `scope`: what to ask for (a step-up's; else the metadata's scopes); `after`: what to
 * do once back (a capability call to retry), kept with the verifier across the redirect.
 */
export async function signIn(config, clientId, basePath, { scope = config.scope, after } = {}) {
  const verifier = randomString(32);
  const state = randomString(16);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const redirect = redirectUri(basePath);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier, clientId, redirect, issuer: config.issuer, tokenEndpoint: config.tokenEndpoint, resource: config.resource, issParameter: config.issParameter, scope, after }));
  const url = new URL(config.authorizationEndpoint);
  const params = { response_type: 'code', client_id: clientId, redirect_uri: redirect, state, code_challenge: challenge, code_challenge_method: 'S256', resource: config.resource, ...(scope ? { scope } : {}) };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  note('request', `sign-in: to ${url.origin}${url.pathname}`);
  location.assign(url.href);
}

/**
 * On the way back from the authorization server: takes the code (or the error) off the URL at
 * once, checks state (and `iss`, RFC 9207), and exchanges the code with the verifier. Resolves to
 * `{ token, expiresAt, issuer, scope, after }` (scope: what was granted), or undefined when this
 * page load is no sign-in's return.
 */
export async function completeSignIn() {
  const params = new URLSearchParams(location.search);
  if (!params.has('state') || (!params.has('code') && !params.has('error'))) return undefined;
  const pendingText = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  // The code leaves the address bar and the history entry before anything else happens.
  history.replaceState(null, '', location.pathname);
  const pending = pendingText ? JSON.parse(pendingText) : undefined;
  if (!pending || params.get('state') !== pending.state) throw new Error('the sign-in came back with a state this tab did not send');
  if (params.has('error')) throw new Error(`the authorization server refused: ${params.get('error')}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`);
  const iss = params.get('iss');
  if ((pending.issParameter || iss !== null) && iss !== pending.issuer) throw new Error(`the sign-in came back from ${iss ?? 'an unnamed issuer'}, not ${pending.issuer}`);
  const body = new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: pending.redirect, client_id: pending.clientId, code_verifier: pending.verifier, resource: pending.resource });
  note('request', `POST ${pending.tokenEndpoint} (authorization code exchange; body not shown)`);
  const response = await fetch(pending.tokenEndpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body, credentials: 'omit', cache: 'no-store' });
  note('response', `${response.status} ${response.statusText} (token response not shown)`);
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`the token endpoint answered ${response.status} ${answer.error ?? ''}${answer.error_description ? `: ${answer.error_description}` : ''}`);
  if (typeof answer.access_token !== 'string' || String(answer.token_type).toLowerCase() !== 'bearer') throw new Error('the token endpoint gave no bearer access token');
  const expiresAt = typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined;
  // RFC 6749 §5.1: no `scope` in the answer means the one asked for was granted.
  const scope = typeof answer.scope === 'string' ? answer.scope : pending.scope ?? '';
  return { token: answer.access_token, expiresAt, issuer: pending.issuer, scope, after: pending.after };
}

/**
 * The scopes a 403 asks for (RFC 6750 §3.1 `error="insufficient_scope"`, with `scope`, the MCP
 * step-up challenge the agent sends), or undefined when the 403 is no such challenge.
 */
export function insufficientScopeOf(response) {
  const challenge = response.headers.get('www-authenticate') ?? '';
  if (response.status !== 403 || !/^Bearer\b/i.test(challenge) || !/error="insufficient_scope"/.test(challenge)) return undefined;
  const scope = /(?:^|[\s,])scope="([^"]*)"/.exec(challenge)?.[1] ?? '';
  const scopes = scope.split(' ').filter(Boolean);
  return scopes.length ? scopes : undefined;
}

function randomString(bytes) {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes) {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
