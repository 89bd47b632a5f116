import { useSampleAgent } from '../support/sample-app';
import { getNews, newSessionId, postNews, readAll } from '../fixtures/news-http';

jest.setTimeout(60_000);

describe('/news on the sample agent (spec, "The /news Endpoint")', () => {
  const agent = useSampleAgent();

  describe('POST /news stores an item and acknowledges it, never replying', () => {
    it('answers 200 {status: "received", news_id, message: "Message stored successfully"} with Cache-Control: no-store', async () => {
      const res = await postNews(agent.url, { type: 'reply', from: 'agent-b', in_reply_to: 'query_123', message: 'Best practices: …' });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.json).toEqual({ status: 'received', news_id: expect.stringMatching(/^news_\d+$/), message: 'Message stored successfully' });
    });

    it('commits the item before the acknowledgement: the next GET returns it', async () => {
      const ack = await postNews(agent.url, { type: 'fact', message: 'committed first' });
      const { items } = (await getNews(agent.url, { limit: 1000 })).json;
      expect(items.find((i) => i.news_id === ack.json.news_id)).toMatchObject({ type: 'fact', message: 'committed first' });
    });

    it.each([
      ['a missing type', { message: 'no type' }],
      ['an empty type', { type: '' }],
      ['a blank type', { type: '   ' }],
      ['a type longer than news.maxTypeLength (200)', { type: 'x'.repeat(201) }],
      ['a non-string type', { type: 7 }],
      ['a non-string from', { type: 'reply', from: 42 }],
      ['a non-string in_reply_to', { type: 'reply', in_reply_to: { id: 1 } }],
      ['a null message', { type: 'reply', message: null }],
      ['a client-sent timestamp (server-assigned)', { type: 'reply', timestamp: 1703012345000 }],
      ['a client-sent news_id (server-assigned)', { type: 'reply', news_id: 'news_1' }],
      ['an array body', [{ type: 'reply' }]],
      ['a string body', '"reply"'],
      ['a null body', 'null'],
    ])('rejects %s with 400 invalid_request', async (_case, body) => {
      const res = await postNews(agent.url, body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_request', message: expect.any(String) });
    });

    it('accepts a type of exactly news.maxTypeLength characters', async () => {
      expect((await postNews(agent.url, { type: 't'.repeat(200) })).status).toBe(200);
    });

    it('rejects a body that is not JSON with 400 invalid_json', async () => {
      const res = await postNews(agent.url, '{"type": "reply",');
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_json');
    });

    it('rejects a non-JSON Content-Type with 415 unsupported_media_type', async () => {
      const res = await fetch(`${agent.url}/news`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'type=reply' });
      expect(res.status).toBe(415);
      expect((await res.json()).error).toBe('unsupported_media_type');
    });

    it('rejects a body over limits.bodyBytes with 413 payload_too_large', async () => {
      const res = await postNews(agent.url, { type: 'big', data: 'x'.repeat(1024 * 1024 + 1) });
      expect(res.status).toBe(413);
      expect(res.json.error).toBe('payload_too_large');
    });

    it('rejects an Idempotency-Key longer than 255 characters or with non-visible characters with 400 invalid_request', async () => {
      for (const key of ['k'.repeat(256), 'has space']) {
        const res = await postNews(agent.url, { type: 'reply' }, { 'Idempotency-Key': key });
        expect(res.status).toBe(400);
        expect(res.json.error).toBe('invalid_request');
      }
    });
  });

  describe('GET /news returns {items, timestamp, has_more} in timestamp order', () => {
    let base: number;
    let ids: string[];

    beforeAll(async () => {
      base = (await getNews(agent.url)).json.timestamp;
      ids = [];
      for (let i = 0; i < 5; i++) ids.push((await postNews(agent.url, { type: 'tick', n: i })).json.news_id as string);
    });

    it('answers items newer than since (exclusive), oldest first, with type, timestamp and news_id', async () => {
      const res = await getNews(agent.url, { since: base });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const { items, timestamp, has_more } = res.json;
      expect(items.map((i) => i.news_id)).toEqual(ids);
      expect(items.map((i) => i.n)).toEqual([0, 1, 2, 3, 4]);
      for (const [k, item] of items.entries()) {
        expect(item).toEqual({ type: 'tick', n: k, timestamp: expect.any(Number), news_id: ids[k] });
        if (k) expect(item.timestamp).toBeGreaterThan(items[k - 1].timestamp);
      }
      expect(has_more).toBe(false);
      expect(timestamp).toBeGreaterThanOrEqual(items[4].timestamp);
      const after = await getNews(agent.url, { since: items[2].timestamp });
      expect(after.json.items.map((i) => i.news_id)).toEqual(ids.slice(3));
    });

    it('pages with limit and has_more; the answer timestamp is a safe cursor for the next poll', async () => {
      const first = (await getNews(agent.url, { since: base, limit: 2 })).json;
      expect(first.items.map((i) => i.news_id)).toEqual(ids.slice(0, 2));
      expect(first.has_more).toBe(true);
      expect(first.timestamp).toBe(first.items[1].timestamp);
      const second = (await getNews(agent.url, { since: first.timestamp, limit: 3 })).json;
      expect(second.items.map((i) => i.news_id)).toEqual(ids.slice(2));
      expect(second.has_more).toBe(false);
      const idle = (await getNews(agent.url, { since: second.timestamp })).json;
      expect(idle).toEqual({ items: [], timestamp: second.timestamp, has_more: false });
    });

    it('defaults since to 0 and limit to news.defaultLimit (100)', async () => {
      for (let i = 0; i < 100; i++) await postNews(agent.url, { type: 'bulk' });
      const page = (await getNews(agent.url)).json;
      expect(page.items).toHaveLength(100);
      expect(page.has_more).toBe(true);
      expect((await getNews(agent.url, { limit: 1000 })).json.items.length).toBeGreaterThan(100);
    });

    it.each(['-1', '1.5', 'abc', '', '1e3', '0x10', '99999999999999999999'])('rejects since=%j with 400 invalid_since', async (since) => {
      const res = await getNews(agent.url, { since });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_since', message: expect.any(String) });
    });

    it('rejects a repeated since parameter with 400 invalid_since', async () => {
      const res = await fetch(`${agent.url}/news?since=1&since=2`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_since');
    });

    it.each(['0', '1001', 'ten', '-5', '2.5', ''])('rejects limit=%j with 400 invalid_request', async (limit) => {
      const res = await getNews(agent.url, { limit });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('invalid_request');
    });
  });

  describe('An item never exposes a session_id to anyone', () => {
    it('stores a body session_id as the feed only: no reader sees it, with or without the session', async () => {
      const sessionId = newSessionId();
      const ack = await postNews(agent.url, { type: 'note', session_id: sessionId, message: 'tagged' });
      expect(ack.status).toBe(200);
      for (const headers of [{}, { 'Restap-Session-Id': sessionId }] as Array<Record<string, string>>) {
        const page = await getNews(agent.url, { limit: 1000 }, headers);
        expect(page.text).not.toContain(sessionId);
        expect(page.text).not.toContain('session_id');
        expect(page.json.items.find((i) => i.news_id === ack.json.news_id)).toEqual({
          type: 'note', message: 'tagged', timestamp: expect.any(Number), news_id: ack.json.news_id,
        });
      }
    });
  });

  describe('@Capability({ news: true }) publishes job.completed after success (spec, "Agent-to-Agent Communication Flow", step 3)', () => {
    it('POST /text/echo adds {type: "job.completed", job_id, query_id, data: {query_id, result}}', async () => {
      const cursor = (await readAll(agent.url)).at(-1)?.timestamp ?? 0;
      const echo = await fetch(`${agent.url}/text/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'Hello World' }) });
      expect(echo.status).toBe(200);
      const result = await echo.json();
      const items = await readAll(agent.url, {}, cursor);
      expect(items).toEqual([
        {
          type: 'job.completed',
          job_id: result.job_id,
          query_id: result.job_id,
          data: { query_id: result.job_id, result: { original_text: 'Hello World', echoed_text: 'Hello World', timestamp: result.timestamp } },
          timestamp: expect.any(Number),
          news_id: expect.stringMatching(/^news_\d+$/),
        },
      ]);
    });

    it('publishes nothing when the capability fails (400 from validation)', async () => {
      const before = (await readAll(agent.url)).length;
      const res = await fetch(`${agent.url}/text/reverse`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(400);
      expect((await readAll(agent.url)).length).toBe(before);
    });
  });

  describe('Discovery declares news and news_receive (spec, "The Catalog Document")', () => {
    it('advertises GET and POST /news with the spec titles and descriptions and sessions {supported: true, required: false} in global scope', async () => {
      const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
      const byId = Object.fromEntries(catalog.capabilities.map((c: { id: string }) => [c.id, c]));
      expect(byId.news).toEqual({
        id: 'news', title: 'Poll for updates', method: 'GET', endpoint: '/news',
        description: 'Poll for task completion and updates (read-only; no reply)',
        parameters: [
          { name: 'since', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: expect.any(String) },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          { name: 'wait', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 30 }, description: expect.stringContaining('hold the poll') },
        ],
        sessions: { supported: true, required: false },
      });
      expect(byId.news_receive).toEqual({
        id: 'news_receive', title: 'Receive replies', method: 'POST', endpoint: '/news',
        description: 'Receive messages/replies from other agents (agent may act on them, but never replies)',
        sessions: { supported: true, required: false },
      });
    });
  });
});
