import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import type { RunningApp } from '../support/sample-app';
import { CLIENT_KINDS, connectClient, connectModern } from './mcp-clients';
import { startMcpFixture, TALK_PIECES } from './mcp-fixture-app';
import { startRoundRobin, type RoundRobin } from './round-robin.proxy';

// Issue 15, item 5: stateless for both eras behind a load balancer with no sticky routing. Two
// instances on one PostgreSQL take turns answering every HTTP request of one MCP client.
jest.setTimeout(120_000);

describe('MCP behind a round-robin load balancer (two instances, one PostgreSQL)', () => {
  let shared: ReplicaDatabase | undefined;
  let a: RunningApp;
  let b: RunningApp;
  let lb: RoundRobin;

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    const url = shared.url;
    a = await startMcpFixture({ url });
    b = await startMcpFixture({ url });
    lb = await startRoundRobin([a.url, b.url]);
  });
  afterAll(async () => {
    await lb?.close();
    await a?.close();
    await b?.close();
    await shared?.close();
  });

  it.each(CLIENT_KINDS)('the %s client connects, lists, calls and continues a talk session across both instances', async (kind) => {
    const before = lb.served.length;
    const client = await connectClient(kind, `${lb.url}/mcp`);
    for (let i = 0; i < 2; i++) expect((await client.listTools()).tools.map((t) => t.name)).toContain('orders_create');
    const created = await client.callTool({ name: 'orders_create', arguments: { item: 'tea', quantity: 2 } });
    expect(created.structuredContent).toEqual({ id: 7, item: 'tea', quantity: 2 });
    const first = (await client.callTool({ name: 'talk', arguments: { message: 'one' } })).structuredContent as { session_id: string };
    const second = (await client.callTool({ name: 'talk', arguments: { message: 'two', session_id: first.session_id } })).structuredContent as { reply: string };
    const third = (await client.callTool({ name: 'talk', arguments: { message: 'three', session_id: first.session_id } })).structuredContent as { reply: string };
    expect(second.reply).toBe(`${TALK_PIECES.join('')} (history: 2)`);
    expect(third.reply).toBe(`${TALK_PIECES.join('')} (history: 4)`);
    const served = lb.served.slice(before);
    expect(new Set(served)).toEqual(new Set([0, 1]));
    await client.close();
  });

  it('a 2026-07-28 listener on one instance hears resources/updated for an item posted on the other', async () => {
    const listener = await connectModern(`${a.url}/mcp`);
    const updated: string[] = [];
    listener.setNotificationHandler('notifications/resources/updated', async (n) => {
      updated.push(n.params.uri);
    });
    const subscription = await listener.listen({ resourceSubscriptions: ['restap://news'] });
    const posted = await fetch(`${b.url}/news`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'status', message: 'from B' }) });
    expect(posted.status).toBe(200);
    const deadline = Date.now() + 10_000;
    while (!updated.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(updated).toContain('restap://news');
    await subscription.close();
    await listener.close();
  });

  it('news posted through one instance is read through the other', async () => {
    const client = await connectClient('2.x pinned 2026-07-28', `${lb.url}/mcp`);
    const ack = (await client.callTool({ name: 'news_post', arguments: { type: 'note', message: 'shared' } })).structuredContent as { news_id: string };
    for (let i = 0; i < 2; i++) {
      const { items } = JSON.parse((await client.readResource({ uri: 'restap://news' })).contents[0].text!) as { items: Array<{ news_id: string }> };
      expect(items.map((item) => item.news_id)).toContain(ack.news_id);
    }
    await client.close();
  });
});
