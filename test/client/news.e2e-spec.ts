import { RestapClient, RestapError, type NewsItem } from 'restap-client';
import { startFixture, type RunningFixture } from './fixtures/restap-fixture.server';

async function take<T>(source: AsyncIterable<T>, count: number): Promise<T[]> {
  const out: T[] = [];
  for await (const value of source) {
    out.push(value);
    if (out.length === count) break;
  }
  return out;
}

describe('news against the compliant fixture', () => {
  let agent: RunningFixture;
  let client: RestapClient;

  beforeEach(async () => {
    agent = await startFixture();
    client = await RestapClient.discover(agent.url);
  });
  afterEach(() => agent.close());

  const seed = async (n: number): Promise<void> => {
    for (let i = 1; i <= n; i++) await client.news.post({ type: 'note', message: `item ${i}` });
  };

  describe('list', () => {
    it('returns {items, timestamp, has_more}; since is exclusive; limit pages', async () => {
      await seed(3);
      const all = await client.news.list();
      expect(all.items.map((i) => i.message)).toEqual(['item 1', 'item 2', 'item 3']);
      expect(typeof all.timestamp).toBe('number');
      expect(all.has_more).toBe(false);
      const after = await client.news.list({ since: all.items[0].timestamp });
      expect(after.items.map((i) => i.message)).toEqual(['item 2', 'item 3']);
      const page = await client.news.list({ limit: 2 });
      expect(page.items).toHaveLength(2);
      expect(page.has_more).toBe(true);
    });
  });

  describe('post', () => {
    it('acknowledges without a reply and sends an auto-generated Idempotency-Key', async () => {
      const ack = await client.news.post({ type: 'reply', from: 'agent-b', in_reply_to: 'query_123', message: 'Done.' });
      expect(ack).toEqual({ status: 'received', news_id: 'news_1', message: 'Message stored successfully' });
      expect(ack).not.toHaveProperty('reply');
      const key = agent.state.requests.at(-1)?.headers['idempotency-key'];
      expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('replays the same ack for the same Idempotency-Key and stores the item once', async () => {
      const first = await client.news.post({ type: 'note', message: 'once' }, { idempotencyKey: 'key-1' });
      const replay = await client.news.post({ type: 'note', message: 'once' }, { idempotencyKey: 'key-1' });
      expect(replay).toEqual(first);
      expect(agent.state.news).toHaveLength(1);
    });

    it('retries a lost acknowledgement (503 + Retry-After) with the same key: stored once', async () => {
      const lossy = await startFixture({ loseFirstNewsAck: true });
      try {
        const lossyClient = await RestapClient.discover(lossy.url);
        const ack = await lossyClient.news.post({ type: 'note', message: 'exactly once' });
        expect(ack.news_id).toBe('news_1');
        expect(lossy.state.newsPosts).toBe(2);
        expect(lossy.state.news).toHaveLength(1);
        const keys = lossy.state.requests.filter((r) => r.method === 'POST').map((r) => r.headers['idempotency-key']);
        expect(new Set(keys).size).toBe(1);
      } finally {
        await lossy.close();
      }
    });

    it('does not retry a 4xx', async () => {
      const error = await client.news.post({ type: '' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RestapError);
      expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(agent.state.newsPosts).toBe(1);
    });
  });

  describe('follow', () => {
    it('drains has_more pages at once, each since = the largest timestamp seen', async () => {
      await seed(5);
      const controller = new AbortController();
      const started = Date.now();
      const feed = client.news.follow({ limit: 2, minIntervalMs: 5_000, maxIntervalMs: 5_000, signal: controller.signal });
      const iterator = feed[Symbol.asyncIterator]();
      const firstFive: NewsItem[] = [];
      for (let i = 0; i < 5; i++) firstFive.push((await iterator.next()).value as NewsItem);
      expect(firstFive.map((i) => i.message)).toEqual(['item 1', 'item 2', 'item 3', 'item 4', 'item 5']);
      // Three pages (2 + 2 + 1) well under one 5 s interval: has_more pages are fetched at once.
      expect(Date.now() - started).toBeLessThan(2_000);
      const sinces = agent.state.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/news')).map((r) => new URL(r.url, 'http://x').searchParams.get('since'));
      expect(sinces).toEqual([null, String(firstFive[1].timestamp), String(firstFive[3].timestamp)]);
      controller.abort();
      expect(await iterator.next()).toEqual({ done: true, value: undefined });
    });

    it('backs off exponentially while idle and ends quietly on abort', async () => {
      const controller = new AbortController();
      const feed = client.news.follow({ minIntervalMs: 20, maxIntervalMs: 80, signal: controller.signal });
      const next = take(feed, 1);
      await new Promise((resolve) => setTimeout(resolve, 400));
      // Waits of 20, 40, 80, 80, 80… ms: about 6 polls in 400 ms, not 20.
      const count = agent.state.requests.filter((r) => r.url.startsWith('/news')).length;
      expect(count).toBeGreaterThanOrEqual(2);
      expect(count).toBeLessThanOrEqual(9);
      await client.news.post({ type: 'note', message: 'late' });
      expect((await next)[0].message).toBe('late');
      controller.abort();
    });
  });

  describe('session-scoped news', () => {
    it('sends the current session in the header when the catalog requires it', async () => {
      const scoped = await startFixture({ newsScope: 'session' });
      try {
        const scopedClient = await RestapClient.discover(scoped.url);
        const noSession = await scopedClient.news.list().catch((e: unknown) => e);
        expect(noSession).toMatchObject({ code: 'missing_session_id', status: 400 });
        const { sessionId } = await scopedClient.talk('Say hello');
        await scopedClient.news.post({ type: 'note', message: 'mine' });
        const page = await scopedClient.news.list();
        expect(page.items.map((i) => i.message)).toEqual(['mine']);
        const last = scoped.state.requests.at(-1);
        expect(last?.headers['restap-session-id']).toBe(sessionId);
        expect(last?.url).not.toContain('session');
      } finally {
        await scoped.close();
      }
    });
  });
});
