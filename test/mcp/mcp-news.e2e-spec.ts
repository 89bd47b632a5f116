import { useTestDatabase } from '../support/test-database';
import type { RunningApp } from '../support/sample-app';
import { CLIENT_KINDS, connectClient, connectModern, type AnyClient } from './mcp-clients';
import { startMcpFixture } from './mcp-fixture-app';

// Issue 15, item 4 (news): the news resource scoped like GET /news, subscriptions, news_post.
jest.setTimeout(60_000);

type Item = { type: string; message?: string; news_id: string; timestamp: number };
const itemsOf = async (client: AnyClient, uri: string): Promise<{ items: Item[]; timestamp?: number }> =>
  JSON.parse((await client.readResource({ uri })).contents[0].text!);

describe('MCP news (global scope)', () => {
  const db = useTestDatabase();
  let app: RunningApp;
  beforeAll(async () => {
    app = await startMcpFixture(db.target);
  });
  afterAll(() => app?.close());

  describe.each(CLIENT_KINDS)('%s client', (kind) => {
    let client: AnyClient;
    beforeAll(async () => {
      client = await connectClient(kind, `${app.url}/mcp`);
    });
    afterAll(() => client?.close());

    it('news_post stores an item and only acknowledges it; the news resource then shows it', async () => {
      const result = await client.callTool({ name: 'news_post', arguments: { type: 'reply', from: 'peer', message: `hello from ${kind}` } });
      expect(result.isError).toBeFalsy();
      const ack = result.structuredContent as { status: string; news_id: string };
      expect(ack).toEqual({ status: 'received', news_id: expect.any(String), message: expect.any(String) });
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('restap://news');
      const { items } = await itemsOf(client, 'restap://news');
      expect(items.find((i) => i.news_id === ack.news_id)).toMatchObject({ type: 'reply', message: `hello from ${kind}` });
    });

    it('restap://news?since= pages the feed like GET /news (items newer than since, the cursor to poll from)', async () => {
      const first = await itemsOf(client, 'restap://news?since=0');
      expect(first.items.length).toBeGreaterThan(0);
      const after = await itemsOf(client, `restap://news?since=${first.timestamp}`);
      expect(after.items).toEqual([]);
      expect(after.timestamp).toBe(first.timestamp);
    });

    it('news_post with a missing type is a tool error', async () => {
      const result = await client.callTool({ name: 'news_post', arguments: { message: 'no type' } });
      expect(result.isError).toBe(true);
    });
  });

  it('a 2025-era client is not offered resource subscriptions (a stateless endpoint could never deliver them)', async () => {
    const legacy = await connectClient('1.x (2025-11-25)', `${app.url}/mcp`);
    expect(legacy.getServerCapabilities()?.resources).toMatchObject({ subscribe: false });
    await legacy.close();
  });

  it('a 2026-07-28 client listening on restap://news hears notifications/resources/updated when an item is posted', async () => {
    const listener = await connectModern(`${app.url}/mcp`);
    const updated: string[] = [];
    listener.setNotificationHandler('notifications/resources/updated', async (n) => {
      updated.push(n.params.uri);
    });
    const subscription = await listener.listen({ resourceSubscriptions: ['restap://news'] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual(['restap://news']);
    const poster = await connectClient('2.x pinned 2026-07-28', `${app.url}/mcp`);
    await poster.callTool({ name: 'news_post', arguments: { type: 'status', message: 'wake up' } });
    await waitFor(() => updated.length > 0);
    expect(updated[0]).toBe('restap://news');
    // An item that arrives through RESTAP's POST /news wakes the stream too.
    const before = updated.length;
    await new Promise((resolve) => setTimeout(resolve, 150)); // past the coalescing window
    const posted = await fetch(`${app.url}/news`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ type: 'status', message: 'via RESTAP' }) });
    expect(posted.status).toBe(200);
    await waitFor(() => updated.length > before);
    await subscription.close();
    await poster.close();
    await listener.close();
  });
});

describe('MCP news (session scope): the session comes from the Restap-Session-Id header', () => {
  const db = useTestDatabase();
  let app: RunningApp;
  beforeAll(async () => {
    app = await startMcpFixture(db.target, { news: { scope: 'session' } });
  });
  afterAll(() => app?.close());

  it('a read without a session is refused (missing_session_id); each session reads only its own feed', async () => {
    const anonymous = await connectClient('2.x auto', `${app.url}/mcp`);
    await expect(anonymous.readResource({ uri: 'restap://news' })).rejects.toThrow(/missing_session_id/);
    await anonymous.close();
    const a = await connectClient('1.x (2025-11-25)', `${app.url}/mcp`, { 'Restap-Session-Id': 'session-a-0123456789' });
    const b = await connectClient('2.x pinned 2026-07-28', `${app.url}/mcp`, { 'Restap-Session-Id': 'session-b-0123456789' });
    await a.callTool({ name: 'news_post', arguments: { type: 'note', message: 'for a' } });
    await b.callTool({ name: 'news_post', arguments: { type: 'note', message: 'for b' } });
    expect((await itemsOf(a, 'restap://news')).items.map((i) => i.message)).toEqual(['for a']);
    expect((await itemsOf(b, 'restap://news')).items.map((i) => i.message)).toEqual(['for b']);
    await a.close();
    await b.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
