// The playground's sign-in module (assets/oauth.js), run in Node with the browser's globals it
// uses stubbed: its refusals happen before any token request. The real flow runs in Chromium in
// test/playground/playground-oauth.e2e-spec.ts.
type Config = { issuer: string; authorizationEndpoint: string; tokenEndpoint: string; resource: string; scope: string; issParameter: boolean };
/* eslint-disable @typescript-eslint/no-require-imports -- an untyped browser module, compiled by Jest's swc like the rest */
const { discover, completeSignIn, oauthEntryOf, insufficientScopeOf, signIn } = require('./assets/oauth.js') as {
  discover: (entry: { resource_metadata: string; resource: string }) => Promise<Config>;
  completeSignIn: () => Promise<{ token: string; expiresAt?: number; issuer: string; scope: string; after?: unknown } | undefined>;
  insufficientScopeOf: (response: Response) => string[] | undefined;
  signIn: (config: Config, clientId: string, basePath: string, options?: { scope?: string; after?: unknown }) => Promise<void>;
  oauthEntryOf: (catalog: unknown) => { resource_metadata: string; resource: string } | undefined;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const ISSUER = 'https://login.example.com/realms/a';
const RESOURCE = 'https://agent.example.com/';
const PRM = 'https://agent.example.com/.well-known/oauth-protected-resource';
const AS_METADATA = 'https://login.example.com/.well-known/oauth-authorization-server/realms/a';

type FetchCall = { url: string; init?: RequestInit };
const calls: FetchCall[] = [];
let answers: Record<string, unknown> = {};
const store = new Map<string, string>();
const g = globalThis as unknown as Record<string, unknown>;

beforeEach(() => {
  calls.length = 0;
  store.clear();
  g.fetch = async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    const body = answers[url];
    return new Response(JSON.stringify(body ?? { error: 'not_found' }), { status: body === undefined ? 404 : 200, headers: { 'content-type': 'application/json' } });
  };
  g.sessionStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
  g.history = { replaceState: (_s: unknown, _t: string, url: string) => void ((g.location as { search: string; pathname: string }).search = '', ((g.location as { pathname: string }).pathname = url)) };
});

function returnTo(query: Record<string, string>, pending?: Record<string, unknown>): void {
  g.location = { origin: 'https://agent.example.com', pathname: '/playground', search: `?${new URLSearchParams(query)}`, href: `https://agent.example.com/playground?${new URLSearchParams(query)}` };
  if (pending) store.set('restap-playground:sign-in', JSON.stringify({ state: 's1', verifier: 'v'.repeat(43), clientId: 'pg', redirect: 'https://agent.example.com/playground', issuer: ISSUER, tokenEndpoint: `${ISSUER}/token`, resource: RESOURCE, issParameter: true, ...pending }));
}

describe('playground sign-in: discovery (issue 34: catalog → protected resource metadata → authorization server)', () => {
  const entry = { resource_metadata: PRM, resource: RESOURCE };
  const as = { issuer: ISSUER, authorization_endpoint: `${ISSUER}/auth`, token_endpoint: `${ISSUER}/token`, code_challenge_methods_supported: ['S256'], authorization_response_iss_parameter_supported: true };

  it('reads the catalog entry only when it names the metadata and the resource', () => {
    expect(oauthEntryOf({ extensions: { 'io.restap/oauth': entry } })).toEqual(entry);
    expect(oauthEntryOf({ extensions: { 'io.restap/oauth': { resource: RESOURCE } } })).toBeUndefined();
    expect(oauthEntryOf({})).toBeUndefined();
  });

  it('follows the chain (RFC 8414 path-aware) and asks for the metadata\'s scopes for its resource', async () => {
    answers = { [PRM]: { resource: RESOURCE, authorization_servers: [ISSUER], scopes_supported: ['text:reverse', 'text:echo'] }, [AS_METADATA]: as };
    await expect(discover(entry)).resolves.toEqual({ issuer: ISSUER, authorizationEndpoint: `${ISSUER}/auth`, tokenEndpoint: `${ISSUER}/token`, resource: RESOURCE, scope: 'text:reverse text:echo', issParameter: true });
    expect(calls.map((c) => [c.url, c.init?.credentials, new Headers(c.init?.headers).has('authorization')])).toEqual([[PRM, 'omit', false], [AS_METADATA, 'omit', false]]);
  });

  it('refuses metadata for another resource (RFC 9728 §3.3), a server naming another issuer, and one without PKCE S256', async () => {
    answers = { [PRM]: { resource: 'https://evil.example/', authorization_servers: [ISSUER] }, [AS_METADATA]: as };
    await expect(discover(entry)).rejects.toThrow(/is for https:\/\/evil\.example\//);
    answers = { [PRM]: { resource: RESOURCE, authorization_servers: [ISSUER] }, [AS_METADATA]: { ...as, issuer: 'https://other.example' } };
    await expect(discover(entry)).rejects.toThrow(/names the issuer https:\/\/other\.example/);
    answers = { [PRM]: { resource: RESOURCE, authorization_servers: [ISSUER] }, [AS_METADATA]: { ...as, code_challenge_methods_supported: ['plain'] } };
    await expect(discover(entry)).rejects.toThrow(/PKCE S256/);
  });
});

describe('playground sign-in: the return (state, iss, the code exchange)', () => {
  it('a page load that is no sign-in\'s return does nothing', async () => {
    returnTo({});
    await expect(completeSignIn()).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('exchanges the code with the PKCE verifier, the redirect URI and the resource; the code leaves the URL and the verifier leaves sessionStorage', async () => {
    returnTo({ code: 'c1', state: 's1', iss: ISSUER }, {});
    answers = { [`${ISSUER}/token`]: { access_token: 'at', token_type: 'Bearer', expires_in: 300 } };
    const result = await completeSignIn();
    expect(result).toMatchObject({ token: 'at', issuer: ISSUER });
    expect(Object.fromEntries(new URLSearchParams(String(calls[0].init?.body)))).toEqual({ grant_type: 'authorization_code', code: 'c1', redirect_uri: 'https://agent.example.com/playground', client_id: 'pg', code_verifier: 'v'.repeat(43), resource: RESOURCE });
    expect((g.location as { search: string }).search).toBe('');
    expect(store.size).toBe(0);
  });

  it('refuses another state, another or missing iss, and an error answer, without asking for a token', async () => {
    returnTo({ code: 'c1', state: 'forged' }, {});
    await expect(completeSignIn()).rejects.toThrow(/state this tab did not send/);
    returnTo({ code: 'c1', state: 's1', iss: 'https://evil.example' }, {});
    await expect(completeSignIn()).rejects.toThrow(/came back from https:\/\/evil\.example/);
    returnTo({ code: 'c1', state: 's1' }, {});
    await expect(completeSignIn()).rejects.toThrow(/unnamed issuer/);
    returnTo({ error: 'access_denied', error_description: 'no', state: 's1' }, {});
    await expect(completeSignIn()).rejects.toThrow(/refused: access_denied \(no\)/);
    expect(calls).toEqual([]);
    expect(store.size).toBe(0);
  });
});

describe('playground step-up (issue 34 gap 2: 403 insufficient_scope → sign in again for the named scopes → retry)', () => {
  const config: Config = { issuer: ISSUER, authorizationEndpoint: `${ISSUER}/auth`, tokenEndpoint: `${ISSUER}/token`, resource: RESOURCE, scope: 'text:echo', issParameter: true };
  const forbidden = (challenge: string | undefined, status = 403) => new Response('{}', { status, headers: challenge ? { 'www-authenticate': challenge } : {} });

  it('reads the scopes of a Bearer insufficient_scope challenge, and nothing from other 403s or 401s', () => {
    const md = 'resource_metadata="https://agent.example.com/.well-known/oauth-protected-resource"';
    expect(insufficientScopeOf(forbidden(`Bearer error="insufficient_scope", error_description="Insufficient scope", scope="text:reverse files:write", ${md}`))).toEqual(['text:reverse', 'files:write']);
    expect(insufficientScopeOf(forbidden(`Bearer error="insufficient_scope", ${md}`))).toBeUndefined();
    expect(insufficientScopeOf(forbidden(undefined))).toBeUndefined();
    expect(insufficientScopeOf(forbidden(`Bearer error="invalid_token", scope="text:reverse"`))).toBeUndefined();
    expect(insufficientScopeOf(forbidden(`Bearer error="insufficient_scope", scope="text:reverse"`, 401))).toBeUndefined();
  });

  it('the first sign-in asks for the metadata\'s scopes; a step-up asks for the ones given and carries the call to retry across the redirect, removed on return', async () => {
    const assigned: string[] = [];
    g.location = { origin: 'https://agent.example.com', pathname: '/playground', search: '', href: 'https://agent.example.com/playground', assign: (url: string) => void assigned.push(url) };
    await signIn(config, 'pg', '/playground');
    expect(new URL(assigned[0]).searchParams.get('scope')).toBe('text:echo');
    const call = { capability: 'text.reverse', params: {}, body: { text: 'abc' } };
    await signIn(config, 'pg', '/playground', { scope: 'text:echo text:reverse', after: call });
    const url = new URL(assigned[1]);
    expect(url.searchParams.get('scope')).toBe('text:echo text:reverse');
    const pending = JSON.parse(store.get('restap-playground:sign-in') as string) as Record<string, unknown>;
    returnTo({ code: 'c1', state: url.searchParams.get('state') as string, iss: ISSUER });
    store.set('restap-playground:sign-in', JSON.stringify(pending));
    answers = { [`${ISSUER}/token`]: { access_token: 'at2', token_type: 'Bearer', expires_in: 300 } };
    // No scope in the answer: the one asked for was granted (RFC 6749 §5.1).
    await expect(completeSignIn()).resolves.toMatchObject({ token: 'at2', scope: 'text:echo text:reverse', after: call });
    expect(store.size).toBe(0);
  });
});
