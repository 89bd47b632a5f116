import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { createSampleApp } from '../../apps/sample-agent/src/bootstrap';
import type { RunningApp } from '../support/sample-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-provider';
import { freePort } from '../support/free-port';
import { MCP_HEADERS, sessionClient } from '../support/mcp-session-client';

jest.setTimeout(120_000);

/** The `exp` claim of a JWT access token, seconds. */
function expOf(token: string): number {
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { exp: number }).exp;
}


async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One GET stream a client opened: the `exp` of the token it carried, and when its body ended (client clock). */
interface SeenStream {
  exp: number;
  ended?: number;
}

/**
 * A `fetch` for the SDK's transport that asks the authorization server for a fresh short-lived
 * token (brief-client: three seconds) on every request, as a client refreshing
 * its token would, and notes each GET stream it opens and when its body ends.
 */
function freshTokenFetch(as: LocalAuthorizationServer, resource: string, streams: SeenStream[]): typeof fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    const token = await as.token('brief-client', resource, 'text:echo');
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    const res = await fetch(url, { ...init, headers });
    if ((init?.method ?? 'GET') !== 'GET' || !res.ok || !res.body) return res;
    const seen: SeenStream = { exp: expOf(token) };
    streams.push(seen);
    const body = res.body.pipeThrough(new TransformStream({ flush: () => void (seen.ended = Date.now()) }));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;
}

/** The JSON-RPC answer of an SSE or JSON body. */
async function rpcOf(res: Response): Promise<{ result?: { tools?: Array<{ name: string }> } & Record<string, unknown>; error?: { code: number; message: string } }> {
  const text = await res.text();
  const data = res.headers.get('content-type')?.includes('text/event-stream') ? text.split('\n').find((l) => l.startsWith('data: '))!.slice(6) : text;
  return JSON.parse(data);
}

/**
 * Issue 34 (follow-up): OAuth beside the MCP door's stateful sessions for 2025-era clients
 * (`mcp.sessions`, issue 38). A session belongs to the OAuth subject and client whose token opened
 * it; every request's token is verified; another subject meets the unknown session's 404.
 */
describe('OAuth 2.1 with MCP stateful sessions (issue 34: OAuth + mcp.sessions)', () => {
  let as: LocalAuthorizationServer;
  let db: TestDatabase;
  let agent: RunningApp;
  let resource: string;
  let mcp: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    db = await createTestDatabase();
    const port = await freePort();
    resource = `http://127.0.0.1:${port}`;
    mcp = `${resource}/mcp`;
    const app = await createSampleApp({ database: db.target, newsScope: 'global', mcpSessions: true, oauth: { issuer: as.issuer, audience: resource } }, { logger: false });
    await app.listen(port, '127.0.0.1');
    agent = { app, url: resource, close: () => app.close() };
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    await as?.stop();
  });

  const post = (token: string | undefined, body: unknown, sessionId?: string) =>
    fetch(mcp, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
      body: JSON.stringify(body),
    });

  it('the official SDK opens a session with a token; the session lists per token: a step-up token of the same subject sees and calls text_reverse in the same session', async () => {
    const limited = await as.token('agent-client', resource, 'text:echo');
    const { client, transport } = await sessionClient(mcp, limited);
    const sessionId = transport.sessionId as string;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('text_reverse');

    // A call anyway: the SDK's 403 step-up challenge, inside the session.
    const refused = await post(limited, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'text_reverse', arguments: { text: 'abc' } } }, sessionId);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"');

    // The same subject and client with more scope, in the same session.
    const full = await as.token('agent-client', resource, 'text:reverse text:echo');
    const stepped = await sessionClient(mcp, full, sessionId);
    expect((await stepped.client.listTools()).tools.map((t) => t.name)).toContain('text_reverse');
    const result = (await stepped.client.callTool({ name: 'text_reverse', arguments: { text: 'abc' } })) as { structuredContent?: { reversed_text?: string } };
    expect(result.structuredContent?.reversed_text).toBe('cba');
    // The limited token is still judged as itself in that session.
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('text_reverse');
    await client.close();
  });

  it("a session's list under a full token is the stateless list, entry for entry (the session lists with the SDK's own fields)", async () => {
    const full = await as.token('agent-client', resource, 'text:reverse text:echo');
    const { client } = await sessionClient(mcp, full);
    const inSession = (await client.listTools()).tools;
    const stateless = (await rpcOf(await post(full, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }))).result?.tools;
    expect(inSession).toEqual(stateless);
    await client.close();
  });

  it("another subject's token with the session id gets 404 Session not found (the SDK's unknown-session answer), on POST, GET and DELETE; the owner's session lives on", async () => {
    const ownerToken = await as.token('agent-client', resource, 'text:echo');
    const { client, transport } = await sessionClient(mcp, ownerToken);
    const sessionId = transport.sessionId as string;
    const other = await as.token('echo-client', resource, 'text:echo');

    const list = await post(other, { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, sessionId);
    expect(list.status).toBe(404);
    expect((await rpcOf(list)).error).toMatchObject({ code: -32001, message: 'Session not found' });
    const get = await fetch(mcp, { headers: { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId, authorization: `Bearer ${other}` } });
    expect(get.status).toBe(404);
    await get.body?.cancel();
    const del = await fetch(mcp, { method: 'DELETE', headers: { 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': sessionId, authorization: `Bearer ${other}` } });
    expect(del.status).toBe(404);
    await del.body?.cancel();

    // The official SDK, as the other subject, resuming that session id: refused the same way.
    const intruder = await sessionClient(mcp, other, sessionId);
    await expect(intruder.client.listTools()).rejects.toThrow(/404|Session not found/);

    // The owner is untouched: the session still answers its token.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('text_echo');
    await client.close();
  });

  it('every request in a session is verified: no token or a tampered one is 401 with the metadata, before the session is looked up', async () => {
    const token = await as.token('agent-client', resource, 'text:echo');
    const { client, transport } = await sessionClient(mcp, token);
    const sessionId = transport.sessionId as string;
    const none = await post(undefined, { jsonrpc: '2.0', id: 4, method: 'tools/list', params: {} }, sessionId);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${resource}/.well-known/oauth-protected-resource"`);
    const [h, p, s] = token.split('.');
    const tampered = await post(`${h}.${p}.${s.slice(0, -4)}AAAA`, { jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }, sessionId);
    expect(tampered.status).toBe(401);
    expect(tampered.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await client.close();
  });

  it('storage keeps a hash of the owner, never the subject, the client id or the token', async () => {
    const token = await as.token('echo-client', resource, 'text:echo');
    const { client } = await sessionClient(mcp, token);
    try {
      const rows = (await agent.app.get(DataSource).query("SELECT encode(owner_hash, 'hex') AS owner, init::text AS init FROM restap_mcp_sessions")) as Array<{ owner: string | null; init: string }>;
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.owner).toMatch(/^[0-9a-f]{64}$/);
        expect(`${row.owner} ${row.init}`).not.toContain('echo-client');
        expect(row.init).not.toContain(token);
      }
    } finally {
      await client.close();
    }
  });

  it('issue 34 gap 1: a session\'s GET stream ends when the token that opened it stops being accepted (its exp); the official SDK reconnects it with a fresh token of the same client, in the same session, and hears its notifications', async () => {
    const streams: SeenStream[] = [];
    const client = new LegacyClient({ name: 'restap-e2e', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(mcp), { fetch: freshTokenFetch(as, resource, streams) });
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updated.push(n.params.uri));
    await client.connect(transport);
    const sessionId = transport.sessionId;
    try {
      await client.subscribeResource({ uri: 'restap://news' });
      // The SDK opens the session's GET stream after the handshake.
      await waitFor(() => streams.length === 1);
      const first = streams[0];
      await waitFor(() => first.ended !== undefined, 15_000);
      // Not before the token stopped being accepted, and not long after (the SDK's keep-alive is 15 s).
      expect(first.ended!).toBeGreaterThanOrEqual((first.exp) * 1000 - 50);
      expect(first.ended!).toBeLessThan((first.exp) * 1000 + 2_000);

      // The SDK reconnects the stream (a clean end of a GET stream) with a fresh token: served, same session.
      await waitFor(() => streams.length === 2, 10_000);
      expect(streams[1].exp).toBeGreaterThan(first.exp);
      expect(streams[1].ended).toBeUndefined();
      expect(transport.sessionId).toBe(sessionId);
      expect(updated).toEqual([]);
      const newsToken = await as.token('agent-client', resource, 'text:echo');
      const posted = await fetch(`${resource}/news`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${newsToken}` }, body: JSON.stringify({ type: 'status', message: 'after reconnect' }) });
      expect(posted.status).toBe(200);
      await waitFor(() => updated.length > 0, 10_000);
      expect(updated[0]).toBe('restap://news');
      // The reconnected stream ends at its own token's deadline too.
      await waitFor(() => streams[1].ended !== undefined, 15_000);
      expect(streams[1].ended!).toBeGreaterThanOrEqual((streams[1].exp) * 1000 - 50);
    } finally {
      await client.close();
    }
  });

  it('issue 34 gap 1: a 2026-07-28 subscriptions/listen stream ends when its token stops being accepted; listening again with a fresh token works', async () => {
    const streams: SeenStream[] = [];
    const listener = new Client({ name: 'restap-e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await listener.connect(new StreamableHTTPClientTransport(new URL(mcp), { fetch: freshTokenFetch(as, resource, streams) }));
    try {
      const token = await as.token('brief-client', resource, 'text:echo');
      const started = Date.now();
      const subscription = await listener.listen({ resourceSubscriptions: ['restap://news'] });
      expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['restap://news']);
      // The listen request carried a token issued after `token`: its deadline is at least token's.
      const deadline = (expOf(token)) * 1000;
      expect(await subscription.closed).toBe('remote');
      const ended = Date.now();
      expect(ended).toBeGreaterThanOrEqual(deadline - 50);
      expect(ended - started).toBeLessThan(10_000);
      const again = await listener.listen({ resourceSubscriptions: ['restap://news'] });
      expect(again.honoredFilter.resourceSubscriptions).toEqual(['restap://news']);
      await again.close();
    } finally {
      await listener.close();
    }
  });
});
