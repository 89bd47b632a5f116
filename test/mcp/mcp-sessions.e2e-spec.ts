import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { startRoundRobin, type RoundRobin } from './round-robin.proxy';
import { connectModern } from './mcp-clients';
import { startMcpFixture } from './mcp-fixture-app';

// Issue 38, item 7: 2025-era clients get what 2026 clients get — a stateful mode (Mcp-Session-Id
// kept in PostgreSQL, any replica serves it), resources/subscribe and notifications/resources/updated
// for news fed by the cross-replica wake-ups, DELETE to end the session.
jest.setTimeout(120_000);

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const ACCEPT = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** The JSON-RPC messages of an answer (JSON, or SSE `data:` lines). */
async function messagesOf(res: Response): Promise<Array<Record<string, unknown>>> {
  const body = await res.text();
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    return body.split('\n').filter((l) => l.startsWith('data:') && l.length > 5).map((l) => JSON.parse(l.slice(5)));
  }
  return body ? [JSON.parse(body)] : [];
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(25);
  }
}

/** A 2025-11-25 client (the 1.x SDK) that records resources/updated notifications. */
async function legacyClient(url: string): Promise<{ client: LegacyClient; transport: LegacyTransport; updated: string[] }> {
  const client = new LegacyClient({ name: 'restap-e2e', version: '1.0.0' });
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
    updated.push(n.params.uri);
  });
  const transport = new LegacyTransport(new URL(url));
  await client.connect(transport);
  return { client, transport, updated };
}

describe('issue 38, item 7: the stateful mode for 2025-era MCP clients, across two replicas', () => {
  let db: ReplicaDatabase | undefined;
  let a: RunningApp;
  let b: RunningApp;
  let lb: RoundRobin;

  beforeAll(async () => {
    db = await openReplicaDatabase();
    a = await startSample({ url: db.url }, {});
    b = await startSample({ url: db.url }, {});
    lb = await startRoundRobin([a.url, b.url]);
  });
  afterAll(async () => {
    await lb?.close();
    await a?.close();
    await b?.close();
    await db?.close();
  });

  it('a 2025-11-25 client subscribed to the news resource on A receives notifications/resources/updated when an item is posted on B', async () => {
    const { client, transport, updated } = await legacyClient(`${a.url}/mcp`);
    try {
      expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
      // Item 7: no listChanged where no channel delivers it (the catalog never changes).
      expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: false });
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      await client.subscribeResource({ uri: 'restap://news' });
      // The client opened its GET stream after the handshake: wait until A holds it, then post on B.
      await sleep(300);
      const posted = await fetch(`${b.url}/news`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'note', message: 'posted on B' }) });
      expect(posted.ok).toBe(true);
      await until(() => updated.length > 0);
      expect(updated[0]).toBe('restap://news');
      const read = await client.readResource({ uri: 'restap://news' });
      expect(JSON.stringify(read.contents[0])).toContain('posted on B');
      // Unsubscribed: the next item is not told.
      await client.unsubscribeResource({ uri: 'restap://news' });
      const told = updated.length;
      await fetch(`${b.url}/news`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'note', message: 'again' }) });
      await sleep(600);
      expect(updated.length).toBe(told);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('behind a round-robin balancer (no stickiness) one session is served by both replicas, its subscription kept in PostgreSQL: the update reaches the GET stream whichever replica holds it', async () => {
    const before = lb.served.length;
    const { client, transport, updated } = await legacyClient(`${lb.url}/mcp`);
    try {
      for (let i = 0; i < 3; i++) expect((await client.listTools()).tools.map((t) => t.name)).toContain('talk');
      await client.subscribeResource({ uri: 'restap://news' });
      await sleep(300);
      await fetch(`${a.url}/news`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'note', message: 'via the balancer' }) });
      await until(() => updated.length > 0);
      expect(new Set(lb.served.slice(before))).toEqual(new Set([0, 1]));
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('logging/setLevel + a log notification per capability call, the level kept for every replica', async () => {
    const { client, transport } = await legacyClient(`${a.url}/mcp`);
    const logs: Array<{ level: string; logger?: string; data: { capability?: string; status?: number } }> = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (n) => {
      logs.push(n.params as (typeof logs)[number]);
    });
    const session = { ...ACCEPT, 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-11-25' };
    const callOnB = async (id: number) => messagesOf(await fetch(`${b.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'text_reverse', arguments: { text: 'abc' } } }) }));
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      // Set on A: A's own call is logged at info, to the client, before the result.
      await client.setLoggingLevel('info');
      const reversed = await client.callTool({ name: 'text_reverse', arguments: { text: 'abc' } });
      expect(JSON.stringify(reversed.content)).toContain('cba');
      expect(logs).toEqual([expect.objectContaining({ level: 'info', logger: 'restap', data: expect.objectContaining({ capability: 'text.reverse', status: 200 }) })]);
      // The same session served by B knows the level set on A.
      const onB = await callOnB(11);
      expect(onB.find((m) => m.method === 'notifications/message')).toMatchObject({ params: { level: 'info', data: { capability: 'text.reverse' } } });
      expect(onB.at(-1)).toMatchObject({ id: 11, result: expect.anything() });
      // Raised to error on B: neither replica logs an info any more.
      const raised = await fetch(`${b.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'logging/setLevel', params: { level: 'error' } }) });
      expect((await messagesOf(raised))[0]).toMatchObject({ id: 12, result: {} });
      const told = logs.length;
      await client.callTool({ name: 'text_reverse', arguments: { text: 'abc' } });
      expect(logs.length).toBe(told);
      expect((await callOnB(13)).some((m) => m.method === 'notifications/message')).toBe(false);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    }
  });

  it('Mcp-Session-Id is issued on initialize; an unknown id is 404 (the SDK\'s "Session not found"); DELETE on one replica ends the session on both', async () => {
    const init = await fetch(`${a.url}/mcp`, { method: 'POST', headers: ACCEPT, body: JSON.stringify(INIT) });
    expect(init.status).toBe(200);
    const id = init.headers.get('mcp-session-id') as string;
    expect(id).toBeTruthy();
    expect((await messagesOf(init))[0]).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    const session = { ...ACCEPT, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    const onB = await fetch(`${b.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(onB.status).toBe(200);
    expect(JSON.stringify(await messagesOf(onB))).toContain('"talk"');

    const unknown = await fetch(`${b.url}/mcp`, { method: 'POST', headers: { ...session, 'mcp-session-id': 'no-such-session' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: -32001, message: 'Session not found' });

    const ended = await fetch(`${b.url}/mcp`, { method: 'DELETE', headers: session });
    expect(ended.status).toBe(200);
    const afterOnA = await fetch(`${a.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' }) });
    expect(afterOnA.status).toBe(404);
  });

  it('the session id never reaches storage in clear (only its SHA-256)', async () => {
    const init = await fetch(`${a.url}/mcp`, { method: 'POST', headers: ACCEPT, body: JSON.stringify(INIT) });
    const id = init.headers.get('mcp-session-id') as string;
    await init.text();
    const { Client } = await import('pg');
    const pg = new Client({ connectionString: (db as ReplicaDatabase).url });
    await pg.connect();
    try {
      const rows = await pg.query('SELECT id_hash::text AS h, init::text AS i FROM restap_mcp_sessions');
      expect(rows.rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows.rows)).not.toContain(id);
    } finally {
      await pg.end();
    }
  });

  it('2025-era requests without a session id are still served statelessly; 2026-07-28 clients are unaffected', async () => {
    const stateless = await fetch(`${a.url}/mcp`, { method: 'POST', headers: ACCEPT, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }) });
    expect(stateless.status).toBe(200);
    expect(JSON.stringify(await messagesOf(stateless))).toContain('"talk"');
    const modern = await connectModern(`${b.url}/mcp`);
    expect((await modern.listTools()).tools.map((t) => t.name)).toContain('talk');
    await modern.close();
  });

  it('malformed JSON on /mcp is the JSON-RPC parse error -32700 (issue 38, item 1)', async () => {
    const res = await fetch(`${a.url}/mcp`, { method: 'POST', headers: ACCEPT, body: '{"jsonrpc": ' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: Invalid JSON' } });
  });
});

describe('issue 38, item 7: a session ended on one replica closes its GET stream on the other', () => {
  let db: ReplicaDatabase | undefined;
  let a: RunningApp;
  let b: RunningApp;
  beforeAll(async () => {
    db = await openReplicaDatabase();
    const options = { mcp: { enabled: true, sessions: { idleMs: 1000 } } };
    a = await startMcpFixture({ url: db.url }, options);
    b = await startMcpFixture({ url: db.url }, options);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.close();
  });

  it('DELETE on B: the GET stream held on A ends within a sweep (mcp.sessions.idleMs / 2), and the session is gone on A', async () => {
    const init = await fetch(`${a.url}/mcp`, { method: 'POST', headers: ACCEPT, body: JSON.stringify(INIT) });
    const id = init.headers.get('mcp-session-id') as string;
    await init.text();
    const session = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    const opened = Date.now();
    const stream = await fetch(`${a.url}/mcp`, { headers: { Accept: 'text/event-stream', ...session } });
    expect(stream.status).toBe(200);
    // The head comes at once, not with the first keep-alive 15 s later.
    expect(Date.now() - opened).toBeLessThan(2000);
    const ended = (async () => {
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      while (!(await reader.read()).done);
      return Date.now();
    })();
    await sleep(1500); // longer than idleMs: a stream keeps the session held (and alive)
    expect((await fetch(`${a.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...session }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) })).status).toBe(200);
    const deleted = Date.now();
    expect((await fetch(`${b.url}/mcp`, { method: 'DELETE', headers: session })).status).toBe(200);
    const endedAt = await ended;
    expect(endedAt - deleted).toBeLessThan(3000);
    expect((await fetch(`${a.url}/mcp`, { method: 'POST', headers: { ...ACCEPT, ...session }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }) })).status).toBe(404);
  });
});
