import { createHmac, randomUUID } from 'node:crypto';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { createSampleApp } from '../../apps/sample-agent/src/bootstrap';
import type { RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { messagesOf, startFakeLlm, type ChatRequestBody, type FakeLlm, type FakeLlmReply } from '../support/fake-llm';
import { CLIENT_SECRETS, signInAs, startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-provider';
import { freePort } from '../support/free-port';
import { MCP_HEADERS } from '../support/mcp-session-client';

jest.setTimeout(120_000);

/** The three doors' requests, each as a real client would send it. */
const DOORS = {
  talk: { path: '/talk', headers: { 'content-type': 'application/json' }, body: () => JSON.stringify({ message: 'hello' }) },
  mcp: { path: '/mcp', headers: MCP_HEADERS, body: () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) },
  a2a: {
    path: '/a2a',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: () => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } } }),
  },
  // A2A's HTTP+JSON binding (issue 38) and the AG-UI door (issue 39): the same sign-in step.
  'a2a http+json': {
    path: '/a2a/rest/message:send',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: () => JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
  },
  agui: {
    path: '/ag-ui',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: () => JSON.stringify({ threadId: '', runId: randomUUID(), messages: [{ id: randomUUID(), role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} }),
  },
} as const;

/**
 * Issue 34: OAuth 2.1 on every door, against a real authorization server (oidc-provider on
 * loopback, client credentials + resource indicators issuing JWT access tokens) and the real
 * sample with RESTAP_OAUTH_ISSUER's settings.
 */
/** A model that calls text_reverse when asked to reverse, whatever tools it was offered, then repeats the tool's answer. */
function reversingModel(body: ChatRequestBody): FakeLlmReply {
  const last = messagesOf(body).at(-1)!;
  if (last.role === 'tool') return { text: `Tool said: ${last.content}` };
  const text = /reverse '(.*)'/.exec(last.content ?? '')?.[1];
  return text === undefined ? { text: 'hello' } : { toolCalls: [{ id: 'call_1', name: 'text_reverse', arguments: JSON.stringify({ text }) }] };
}

describe('OAuth 2.1 on every door (issue 34)', () => {
  let as: LocalAuthorizationServer;
  let llm: FakeLlm;
  let db: TestDatabase;
  let agent: RunningApp;
  let resource: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    llm = await startFakeLlm({ respond: reversingModel });
    db = await createTestDatabase();
    const port = await freePort();
    resource = `http://127.0.0.1:${port}`;
    const app = await createSampleApp({ database: db.target, newsScope: 'global', oauth: { issuer: as.issuer, audience: resource, introspection: { clientId: 'agent-rs', clientSecret: 'agent-rs-secret' } }, llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' } }, { logger: false });
    await app.listen(port, '127.0.0.1');
    agent = { app, url: resource, close: () => app.close() };
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    await as?.stop();
    await llm?.close();
  });

  const send = (door: keyof typeof DOORS, token?: string) =>
    fetch(`${agent.url}${DOORS[door].path}`, {
      method: 'POST',
      headers: { ...DOORS[door].headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: DOORS[door].body(),
    });

  it.each(Object.keys(DOORS) as Array<keyof typeof DOORS>)('Done-when: no token on %s → 401 whose WWW-Authenticate names the protected resource metadata, which names the issuer', async (door) => {
    const res = await send(door);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'unauthorized', message: expect.stringContaining('access token') });
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe(`Bearer resource_metadata="${resource}/.well-known/oauth-protected-resource"`);
    const metadata = await fetch(`${resource}/.well-known/oauth-protected-resource`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: `${resource}/`, authorization_servers: [as.issuer], bearer_methods_supported: ['header'], scopes_supported: ['text:reverse'] });
  });

  it('RFC 9728: the path-suffixed metadata for the MCP endpoint is the same document; the catalog and the A2A card (oauth2 scheme, issue 34 item 3) stay public', async () => {
    const root = await (await fetch(`${resource}/.well-known/oauth-protected-resource`)).json();
    const mcp = await fetch(`${resource}/.well-known/oauth-protected-resource/mcp`);
    expect(mcp.status).toBe(200);
    expect(await mcp.json()).toEqual(root);
    expect((await fetch(`${resource}/`)).status).toBeLessThan(400);
    const card = await fetch(`${resource}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(card.status).toBe(200);
    const body = (await card.json()) as { securitySchemes?: Record<string, { oauth2SecurityScheme?: { oauth2MetadataUrl?: string; flows?: { clientCredentials?: { tokenUrl?: string; scopes?: object } } } }> };
    const scheme = body.securitySchemes?.oauth2?.oauth2SecurityScheme;
    expect(scheme?.oauth2MetadataUrl).toBe(`${as.issuer}/.well-known/oauth-authorization-server`);
    expect(scheme?.flows?.clientCredentials).toMatchObject({ tokenUrl: `${as.issuer}/token`, scopes: { 'text:reverse': expect.any(String) } });
    // The skill that needs a scope says so: text.reverse requires text:reverse of the oauth2 scheme.
    const skills = (body as unknown as { skills: Array<{ id: string; securityRequirements?: unknown[] }> }).skills;
    expect(skills.find((skill) => skill.id === 'text.reverse')?.securityRequirements).toEqual([{ schemes: { oauth2: { list: ['text:reverse'] } } }]);
    expect(skills.find((skill) => skill.id === 'text.echo')?.securityRequirements ?? []).toEqual([]);
    // A2A 0.3 clients (no A2A-Version) get the same scheme in the 0.3 card's shape.
    const legacy = (await (await fetch(`${resource}/.well-known/agent-card.json`)).json()) as { securitySchemes?: Record<string, unknown> };
    expect(legacy.securitySchemes?.oauth2).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: `${as.issuer}/token` } } });
  });

  it('issue 34 item 3: the RESTAP catalog names the protected resource metadata (extension io.restap/oauth), the same URL the 401s name, and its resource', async () => {
    const res = await fetch(`${resource}/.well-known/restap.json`);
    expect(res.status).toBe(200);
    const catalog = (await res.json()) as { extensions?: Record<string, { resource_metadata?: string; resource?: string; bearer_methods_supported?: string[] }> };
    const entry = catalog.extensions?.['io.restap/oauth'];
    expect(entry).toMatchObject({ version: '1', resource_metadata: `${resource}/.well-known/oauth-protected-resource`, resource: `${resource}/`, bearer_methods_supported: ['header'] });
    const challenge = (await send('talk')).headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${entry!.resource_metadata}"`);
    const metadata = (await (await fetch(entry!.resource_metadata!)).json()) as { resource: string; authorization_servers: string[] };
    expect(metadata).toMatchObject({ resource: entry!.resource, authorization_servers: [as.issuer] });
  });

  it.each(Object.keys(DOORS) as Array<keyof typeof DOORS>)('Done-when: a client-credentials JWT for the agent\'s audience is accepted on %s', async (door) => {
    const token = await as.token('agent-client', resource, 'text:reverse text:echo');
    const res = await send(door, token);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it.each(Object.keys(DOORS) as Array<keyof typeof DOORS>)('Done-when: a token for another audience is refused on %s (401 invalid_token, no passthrough)', async (door) => {
    const token = await as.token('agent-client', 'https://other.example', 'text:reverse');
    const res = await send(door, token);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_token', message: expect.stringContaining('another audience') });
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${resource}/.well-known/oauth-protected-resource"`);
  });

  it('issue 34 item 2: a tampered token, an alg none token and a garbage token are refused with 401 invalid_token', async () => {
    const token = await as.token('agent-client', resource, 'text:reverse');
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: 'text:reverse text:echo admin' })).toString('base64url');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${payload}.`;
    for (const bad of [`${header}.${forged}.${signature}`, none, 'not.a.jwt']) {
      const res = await send('talk', bad);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_token');
    }
  });

  it('issue 34 item 2: an expired token, a token of another issuer and an HS256 token keyed with the issuer\'s public key are refused', async () => {
    const other = await startAuthorizationServer();
    try {
      const foreign = await other.token('agent-client', resource, 'text:reverse');
      const foreignRes = await send('mcp', foreign);
      expect(foreignRes.status).toBe(401);
      expect(((await foreignRes.json()) as { error: string }).error).toBe('invalid_token');
    } finally {
      await other.stop();
    }
    const jwks = (await (await fetch(`${as.issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> };
    const good = await as.token('agent-client', resource, 'text:reverse');
    const payload = good.split('.')[1];
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: jwks.keys[0].kid })).toString('base64url');
    const mac = createHmac('sha256', JSON.stringify(jwks.keys[0])).update(`${header}.${payload}`).digest('base64url');
    const hs = await send('a2a', `${header}.${payload}.${mac}`);
    expect(hs.status).toBe(401);
    expect(await hs.json()).toEqual({ error: 'invalid_token', message: expect.stringContaining('algorithm') });
    // short-client's tokens live 1 s; exp is enforced without leeway (the SDK's bearer check).
    const short = await as.token('short-client', resource, 'text:echo');
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const expired = await send('talk', short);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toEqual({ error: 'invalid_token', message: expect.stringContaining('expired') });
  });

  it('issue 34 item 2: key rotation: after the issuer rotates its key, new tokens verify (unknown kid → JWKS refetched) and the old key\'s tokens no longer do', async () => {
    const before = await as.token('agent-client', resource, 'text:echo');
    expect((await send('talk', before)).status).toBe(200);
    await as.rotate();
    const after = await as.token('agent-client', resource, 'text:echo');
    expect(JSON.parse(Buffer.from(after.split('.')[0], 'base64url').toString()).kid).not.toBe(JSON.parse(Buffer.from(before.split('.')[0], 'base64url').toString()).kid);
    await new Promise((resolve) => setTimeout(resolve, 5_200)); // the JWKS refetch cooldown
    expect((await send('talk', after)).status).toBe(200);
    const old = await send('talk', before);
    expect(old.status).toBe(401);
    expect(((await old.json()) as { error: string }).error).toBe('invalid_token');
  });

  it.each(Object.keys(DOORS) as Array<keyof typeof DOORS>)('issue 34 item 2: an opaque token is checked by RFC 7662 introspection on %s: for the agent accepted, for another audience or unknown refused', async (door) => {
    const opaque = await as.token('opaque-client', resource, 'text:echo');
    expect(opaque.split('.')).toHaveLength(1);
    const ok = await send(door, opaque);
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const elsewhere = await send(door, await as.token('opaque-client', 'https://other.example', 'text:echo'));
    expect(elsewhere.status).toBe(401);
    expect(await elsewhere.json()).toEqual({ error: 'invalid_token', message: expect.stringContaining('another audience') });
    const unknown = await send(door, 'made-up-opaque-token');
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toEqual({ error: 'invalid_token', message: expect.stringContaining('not active') });
  });

  it('issue 34 items 2 and 4: an introspected token\'s scopes count too: the MCP list omits text_reverse without text:reverse', async () => {
    const opaque = await as.token('opaque-client', resource, 'text:echo');
    const client = new Client({ name: 'restap-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${resource}/mcp`), { requestInit: { headers: { authorization: `Bearer ${opaque}` } } }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('text_echo');
    expect(names).not.toContain('text_reverse');
    await client.close();
  });

  it('issue 34 items 2 and 4: the capability\'s own route (POST /text/reverse) checks the token and its scope too', async () => {
    const post = (token?: string) =>
      fetch(`${resource}/text/reverse`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify({ text: 'abc' }) });
    const none = await post();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${resource}/.well-known/oauth-protected-resource"`);
    const limited = await post(await as.token('echo-client', resource, 'text:echo'));
    expect(limited.status).toBe(403);
    expect(await limited.json()).toEqual({ error: 'insufficient_scope', message: expect.stringContaining('text:reverse') });
    expect(limited.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(limited.headers.get('www-authenticate')).toContain('scope="text:reverse"');
    const full = await post(await as.token('agent-client', resource, 'text:reverse'));
    expect(full.status).toBe(200);
    expect(((await full.json()) as { reversed_text: string }).reversed_text).toBe('cba');
    // Routes that are not capabilities stay the host's: the health check answers without a token.
    expect((await fetch(`${resource}/health/live`)).status).toBe(200);
  });

  it('Done-when: without text:reverse the MCP tool list omits text_reverse, and a direct tools/call gets 403 insufficient_scope (step-up challenge)', async () => {
    const limited = await as.token('echo-client', resource, 'text:echo');
    const client = new Client({ name: 'restap-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${resource}/mcp`), { requestInit: { headers: { authorization: `Bearer ${limited}` } } }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('text_echo');
    expect(names).not.toContain('text_reverse');
    await client.close();

    const res = await fetch(`${resource}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${limited}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'text_reverse', arguments: { text: 'abc' } } }),
    });
    expect(res.status).toBe(403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="text:reverse"');
    expect(challenge).toContain(`resource_metadata="${resource}/.well-known/oauth-protected-resource"`);

    // The full token sees and calls it.
    const full = await as.token('agent-client', resource, 'text:reverse text:echo');
    const allowed = new Client({ name: 'restap-e2e', version: '1.0.0' });
    await allowed.connect(new StreamableHTTPClientTransport(new URL(`${resource}/mcp`), { requestInit: { headers: { authorization: `Bearer ${full}` } } }));
    expect((await allowed.listTools()).tools.map((t) => t.name)).toContain('text_reverse');
    await allowed.close();
  });

  it('issue 34 item 4: the same scope rule on A2A: a capability call without text:reverse fails with 403 insufficient_scope', async () => {
    const limited = await as.token('echo-client', resource, 'text:echo');
    const res = await fetch(`${resource}/a2a`, {
      method: 'POST',
      headers: { ...DOORS.a2a.headers, authorization: `Bearer ${limited}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { capability: 'text.reverse', arguments: { text: 'abc' } } }] } } }),
    });
    expect(res.status).toBe(200);
    const task = ((await res.json()) as { result: { task?: { status?: { state?: string; message?: { parts?: Array<{ data?: { status?: number; error?: string } }> } } } } }).result.task;
    expect(task?.status?.state).toBe('TASK_STATE_FAILED');
    expect(task?.status?.message?.parts?.find((p) => p.data)?.data).toMatchObject({ status: 403, error: 'insufficient_scope' });
  });

  it('issue 38 item 4: the A2A extended card lists the skills the token may use (by scope, like MCP tools/list), on both bindings; the public card offers it', async () => {
    const publicCard = (await (await fetch(`${resource}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as { capabilities: { extendedAgentCard?: boolean }; skills: Array<{ id: string }> };
    expect(publicCard.capabilities.extendedAgentCard).toBe(true);
    expect(publicCard.skills.map((skill) => skill.id)).toContain('text.reverse');
    const rpc = async (token: string) => {
      const res = await fetch(`${resource}/a2a`, { method: 'POST', headers: { ...DOORS.a2a.headers, authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { result: { skills: Array<{ id: string }> } }).result.skills.map((skill) => skill.id);
    };
    const limited = await as.token('echo-client', resource, 'text:echo');
    expect(await rpc(limited)).not.toContain('text.reverse');
    expect(await rpc(limited)).toEqual(expect.arrayContaining(['talk', 'text.echo']));
    expect(await rpc(await as.token('agent-client', resource, 'text:reverse text:echo'))).toContain('text.reverse');
    const rest = await fetch(`${resource}/a2a/rest/extendedAgentCard`, { headers: { 'a2a-version': '1.0', authorization: `Bearer ${limited}` } });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { skills: Array<{ id: string }> }).skills.map((skill) => skill.id)).not.toContain('text.reverse');
    // No token: the door's sign-in step answers first, 401 naming the protected resource metadata.
    const anonymous = await fetch(`${resource}/a2a/rest/extendedAgentCard`, { headers: { 'a2a-version': '1.0' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('issue 34 item 4: the model\'s tools follow the caller\'s scopes: without text:reverse it is not offered, and a call anyway gets 403 insufficient_scope as the tool result', async () => {
    const talk = (token: string) =>
      fetch(`${resource}/talk`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ message: "reverse 'abc'" }) });
    const limited = await talk(await as.token('echo-client', resource, 'text:echo'));
    expect(limited.status).toBe(200);
    const offered = (llm.requests.at(-2)!.body as ChatRequestBody).tools!.map((t) => t.function.name);
    // Every tool but text_reverse (the sample's notes_* need no scope).
    expect(offered).toEqual(['text_echo', 'notes_create', 'notes_list', 'notes_digest', 'notes_get', 'notes_delete']);
    expect(((await limited.json()) as { reply: string }).reply).toContain('Error 403 insufficient_scope');

    const full = await talk(await as.token('agent-client', resource, 'text:reverse text:echo'));
    expect((llm.requests.at(-2)!.body as ChatRequestBody).tools!.map((t) => t.function.name).sort()).toEqual(['notes_create', 'notes_delete', 'notes_digest', 'notes_get', 'notes_list', 'text_echo', 'text_reverse']);
    expect(((await full.json()) as { reply: string }).reply).toContain('"reversed_text":"cba"');
  });

  it('Done-when: the official MCP client SDK completes its OAuth flow unaided (401 → resource_metadata → issuer → client-credentials token → tools/call)', async () => {
    const authProvider = new ClientCredentialsProvider({ clientId: 'agent-client', clientSecret: CLIENT_SECRETS['agent-client'], scope: 'text:reverse text:echo', expectedIssuer: as.issuer });
    const client = new Client({ name: 'restap-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${resource}/mcp`), { authProvider }));
    const result = (await client.callTool({ name: 'text_reverse', arguments: { text: 'hello' } })) as { isError?: boolean; structuredContent?: { reversed_text?: string } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.reversed_text).toBe('olleh');
    expect(authProvider.tokens()?.access_token).toEqual(expect.any(String));
    await client.close();
  });

  it('issue 34 tests: the official MCP client SDK signs a user in with the authorization code flow + PKCE (its own discovery, then the code exchange), and calls text_reverse', async () => {
    let redirectedTo: URL | undefined;
    let verifier = '';
    let saved: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return 'http://127.0.0.1:1/callback';
      },
      clientMetadata: { client_name: 'restap-e2e', redirect_uris: ['http://127.0.0.1:1/callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
      clientInformation: () => ({ client_id: 'mcp-app' }),
      tokens: () => saved,
      saveTokens: (tokens) => void (saved = tokens),
      redirectToAuthorization: (url) => void (redirectedTo = url),
      saveCodeVerifier: (v) => void (verifier = v),
      codeVerifier: () => verifier,
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${resource}/mcp`), { authProvider: provider });
    const first = new Client({ name: 'restap-e2e', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(redirectedTo?.origin).toBe(as.issuer);
    expect(redirectedTo?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(redirectedTo?.searchParams.get('resource')).toBe(`${resource}/`);
    const callback = await signInAs(redirectedTo!, 'ada');
    await transport.finishAuth(callback.searchParams);
    // A user's token: its subject is the person who signed in, its audience the agent.
    const claims = JSON.parse(Buffer.from(saved!.access_token.split('.')[1], 'base64url').toString()) as { sub: string; aud: string; client_id: string };
    expect(claims).toMatchObject({ sub: 'ada', aud: `${resource}/`, client_id: 'mcp-app' });

    const client = new Client({ name: 'restap-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${resource}/mcp`), { authProvider: provider }));
    const result = (await client.callTool({ name: 'text_reverse', arguments: { text: 'ada' } })) as { isError?: boolean; structuredContent?: { reversed_text?: string } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent?.reversed_text).toBe('ada');
    await client.close();
  });
});
