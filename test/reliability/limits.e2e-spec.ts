import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { openTalkStream, postTalk, eventsOnly, type TalkStreamReader } from '../fixtures/talk-sse';
import { getNews, postNews } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 6, item 3 — limits are options with documented defaults: body size, message length, news
// page size, per-client rate limits (429 + Retry-After, before any LLM call), open-stream caps
// per client and in total (429), the talk handler's upstream timeout.
jest.setTimeout(60_000);

const never = (ctx: { signal: AbortSignal }): Promise<string> =>
  new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(''), { once: true }));

describe('issue 6, item 3 — limits', () => {
  let db: TestDatabase;
  const apps: ReliabilityApp[] = [];
  const start = async (...args: Parameters<typeof startReliabilityApp>): Promise<ReliabilityApp> => {
    const app = await startReliabilityApp(...args);
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  describe('rate limit (option rateLimit, through @nestjs/throttler)', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await start(db.target, { restap: { rateLimit: { limit: 3, ttlMs: 60_000 } } });
    });

    it('past the limit POST /talk is 429 too_many_requests with Retry-After, and the handler (the LLM call) never runs', async () => {
      for (let i = 0; i < 3; i++) expect((await postTalk(`${app.url}/talk`, { message: 'hi' })).status).toBe(200);
      const refused = await postTalk(`${app.url}/talk`, { message: 'hi' }, { Accept: 'text/event-stream' });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await refused.json()).toEqual({ error: 'too_many_requests', message: expect.stringContaining('Retry in') });
      expect(app.brain.calls).toBe(3);
    });

    it('each route counts on its own: GET /news and POST /news still answer, then hit their own limits', async () => {
      for (let i = 0; i < 3; i++) expect((await getNews(app.url)).status).toBe(200);
      const read = await getNews(app.url);
      expect([read.status, read.json.error]).toEqual([429, 'too_many_requests']);
      for (let i = 0; i < 3; i++) expect((await postNews(app.url, { type: 't' })).status).toBe(200);
      const write = await postNews(app.url, { type: 't' });
      expect([write.status, write.json.error, write.headers.get('retry-after')]).toEqual([429, 'too_many_requests', expect.stringMatching(/^\d+$/)]);
    });

    it("the host's own routes are not rate limited by the module", async () => {
      for (let i = 0; i < 10; i++) expect((await fetch(`${app.url}/host/ping`)).status).toBe(200);
    });

    it('without the option there is no rate limit (the default is off)', async () => {
      const open = await start(db.target);
      for (let i = 0; i < 30; i++) expect((await postNews(open.url, { type: 't' })).status).toBe(200);
    });
  });

  describe('open SSE streams (talk.maxStreamsPerClient, talk.maxStreams)', () => {
    let app: ReliabilityApp;
    const from = (ip: string): Record<string, string> => ({ 'X-Forwarded-For': ip });
    beforeAll(async () => {
      app = await start(db.target, { restap: { talk: { maxStreams: 3, maxStreamsPerClient: 2 }, news: false }, configure: (a) => a.set('trust proxy', true) });
      app.brain.behaviour = never;
    });

    it('a client past its cap gets 429, another client still streams until the total cap, and a closed stream frees its slot', async () => {
      const open: TalkStreamReader[] = [];
      for (let i = 0; i < 2; i++) open.push(await openTalkStream(`${app.url}/talk`, { message: 'hold' }, from('192.0.2.1')));
      expect(open.map((s) => s.response.status)).toEqual([200, 200]);
      const perClient = await postTalk(`${app.url}/talk`, { message: 'hold' }, { Accept: 'text/event-stream', ...from('192.0.2.1') });
      expect([perClient.status, perClient.headers.get('retry-after'), (await perClient.json()).message]).toEqual([429, '1', expect.stringContaining('per client')]);

      open.push(await openTalkStream(`${app.url}/talk`, { message: 'hold' }, from('192.0.2.2')));
      expect(open[2].response.status).toBe(200);
      const total = await postTalk(`${app.url}/talk`, { message: 'hold' }, { Accept: 'text/event-stream', ...from('192.0.2.3') });
      expect([total.status, (await total.json()).error]).toEqual([429, 'too_many_requests']);

      // JSON turns are not streams: they are not counted.
      app.brain.behaviour = () => 'quick';
      expect((await postTalk(`${app.url}/talk`, { message: 'json' }, from('192.0.2.3'))).status).toBe(200);
      app.brain.behaviour = never;

      open[0].abort();
      await new Promise((r) => setTimeout(r, 200));
      const again = await openTalkStream(`${app.url}/talk`, { message: 'hold' }, from('192.0.2.3'));
      expect(again.response.status).toBe(200);
      for (const s of [...open, again]) s.abort();
    });
  });

  describe('request limits (limits.bodyBytes, talk.maxMessageLength, news.maxLimit) and the upstream timeout (talk.timeoutMs)', () => {
    let app: ReliabilityApp;
    beforeAll(async () => {
      app = await start(db.target, { restap: { limits: { bodyBytes: 2000 }, talk: { maxMessageLength: 10, timeoutMs: 300 }, news: { maxLimit: 5 } } });
    });

    it('413 payload_too_large past limits.bodyBytes, 400 past talk.maxMessageLength, 400 for a limit past news.maxLimit', async () => {
      const big = await postNews(app.url, { type: 't', message: 'x'.repeat(3000) });
      expect([big.status, big.json.error]).toEqual([413, 'payload_too_large']);
      const long = await postTalk(`${app.url}/talk`, { message: 'x'.repeat(11) });
      expect([long.status, (await long.json()).error]).toEqual([400, 'invalid_request']);
      const page = await getNews(app.url, { limit: 6 });
      expect([page.status, page.json.error]).toEqual([400, 'invalid_request']);
    });

    it('a handler past talk.timeoutMs: JSON 504 agent_timeout, SSE error then done', async () => {
      app.brain.behaviour = never;
      const json = await postTalk(`${app.url}/talk`, { message: 'slow' });
      expect([json.status, (await json.json()).error]).toEqual([504, 'agent_timeout']);
      const frames = eventsOnly(await (await openTalkStream(`${app.url}/talk`, { message: 'slow' })).rest());
      expect(frames.map((f) => f.event).slice(-2)).toEqual(['error', 'done']);
      expect(frames.at(-2)?.data).toMatchObject({ error: 'agent_timeout' });
    });
  });
});
