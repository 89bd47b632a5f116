import { NewsStore, NewsWakeups } from 'nestjs-restap';
import { feedOf } from 'nestjs-restap/core/news/news-feed';
import { GLOBAL_SEQUENCE } from 'nestjs-restap/persistence/news.store';
import { get } from 'node:http';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { NEWS_CHANNEL, NOTIFY_SPACING_MS, pgConfigOf } from 'nestjs-restap/core/news/pg-news.channel';
import { NewsWaits } from 'nestjs-restap/core/news/news-waits';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { getNews, newSessionId, postNews, type WireNewsPage } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from '../reliability/support/reliability-app';
import type { RestapModuleOptions } from 'nestjs-restap';

// Issue 18 — GET /news?wait=N: a poll that finds nothing is held until an item it may see commits
// on any replica (LISTEN/NOTIFY through PostgreSQL), or N seconds pass. Two app instances on one
// PostgreSQL: the server of TEST_DATABASE_URL, else one the test starts (two embedded databases
// would be two agents). The resync timer is set far out, so a wake-up within a second is NOTIFY's.
jest.setTimeout(120_000);

type Item = WireNewsPage['items'][number];

/** Two replicas of one agent on one database. */
function useReplicas(restap: Partial<RestapModuleOptions> = {}): { a: ReliabilityApp; b: ReliabilityApp } {
  const pair = {} as { a: ReliabilityApp; b: ReliabilityApp };
  let shared: ReplicaDatabase | undefined;
  beforeAll(async () => {
    shared = await openReplicaDatabase();
    const url = shared.url;
    const options = { ...restap, news: { resyncMs: 60_000, ...(restap.news || {}) } };
    pair.a = await startReliabilityApp({ url }, { restap: options });
    pair.b = await startReliabilityApp({ url }, { restap: options });
    // Both listeners are in place before the first test (LISTEN is opened after bootstrap).
    for (const app of [pair.a, pair.b]) {
      const wakeups = app.app.get(NewsWakeups);
      while (!wakeups.connected) await new Promise((r) => setTimeout(r, 20));
      expect(wakeups.transport).toBe('listen');
    }
  });
  afterAll(async () => {
    // A test may have closed one already (graceful shutdown).
    await pair.a?.close().catch(() => undefined);
    await pair.b?.close().catch(() => undefined);
    await shared?.close();
  });
  return pair;
}

/** GET over node:http (fetch hides hop-by-hop headers): status, the Connection header, body. */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; connection?: string; json: WireNewsPage }> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, { headers: { connection: 'keep-alive', ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, json: JSON.parse(text) as WireNewsPage }));
    }).on('error', reject);
  });
}

/** The feed's current cursor: where an up-to-date reader polls from. */
async function cursorOf(base: string, headers: Record<string, string> = {}): Promise<number> {
  let since = 0;
  for (;;) {
    const page = await getNews(base, { since, limit: 1000 }, headers);
    since = page.json.timestamp;
    if (!page.json.has_more) return since;
  }
}

describe('GET /news?wait=N (issue 18) — held polls woken across replicas', () => {
  const r = useReplicas();

  it('discovery lists wait in the news capability parameters, with its bounds 1..30', async () => {
    const catalog = (await (await fetch(`${r.a.url}/.well-known/restap.json`)).json()) as { capabilities: Array<{ id: string; parameters?: unknown[] }> };
    const news = catalog.capabilities.find((c) => c.id === 'news');
    expect(news?.parameters).toContainEqual(expect.objectContaining({ name: 'wait', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 30 } }));
  });

  it.each(['0', '31', '1.5', 'soon', '-1'])('wait=%s is refused with 400 invalid_request', async (wait) => {
    const answer = await getNews(r.a.url, { wait });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('wait') });
  });

  it('items newer than since exist: answers at once, exactly as without wait', async () => {
    await postNews(r.b.url, { type: 'ready', message: 'already there' });
    const started = Date.now();
    const waited = await getNews(r.a.url, { since: 0, wait: 30, limit: 1000 });
    const plain = await getNews(r.a.url, { since: 0, limit: 1000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(waited.status).toBe(200);
    expect(waited.json).toEqual(plain.json);
  });

  it('a poll held on A answers within a second with the item posted to B', async () => {
    const since = await cursorOf(r.a.url);
    const held = getNews(r.a.url, { since, wait: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300)); // the poll is held on A by now
    const posted = Date.now();
    const ack = await postNews(r.b.url, { type: 'wake', message: 'from B' });
    const page = await held;
    expect(Date.now() - posted).toBeLessThan(1_000);
    expect(page.status).toBe(200);
    expect(page.json.items.map((i) => i.news_id)).toEqual([ack.json.news_id]);
    expect(page.json.timestamp).toBe(page.json.items[0].timestamp);
  });

  it(`posts streaming into B send NOTIFYs at most one per ${NOTIFY_SPACING_MS} ms, the last with the newest ts, and A's held polls see every item`, async () => {
    const listener = new Client(pgConfigOf('auto', r.b.app.get(DataSource)));
    await listener.connect();
    const arrivals: Array<{ at: number; payload: string }> = [];
    listener.on('notification', (n) => arrivals.push({ at: performance.now(), payload: n.payload ?? '' }));
    await listener.query(`LISTEN ${NEWS_CHANNEL}`);
    try {
      const since = await cursorOf(r.a.url);
      const held = getNews(r.a.url, { since, wait: 20, limit: 1000 });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the poll is held on A by now
      const started = performance.now();
      const acked: string[] = [];
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (performance.now() - started < 600) acked.push(String((await postNews(r.b.url, { type: 'stream', message: 'm' })).json.news_id));
      }));
      expect((await held).json.items.length).toBeGreaterThan(0);
      const page = await getNews(r.a.url, { since, limit: 1000 });
      expect(page.json.items.map((i) => i.news_id).sort()).toEqual(acked.sort());
      await until(() => arrivals.some((n) => n.payload.endsWith(`:${page.json.timestamp}`)));
      const fromB = arrivals.filter((n) => n.at >= started);
      const span = fromB[fromB.length - 1].at - fromB[0].at;
      // Statements start NOTIFY_SPACING_MS apart (less the timers' 1 ms grain); arrivals may bunch a little.
      expect(fromB.length).toBeLessThanOrEqual(Math.ceil(span / (NOTIFY_SPACING_MS - 1)) + 2);
      expect(acked.length).toBeGreaterThan(fromB.length);
    } finally {
      await listener.end();
    }
  });

  it('nothing commits within wait: {items: [], timestamp} after about wait seconds, a cursor that loses nothing', async () => {
    const since = await cursorOf(r.a.url);
    const started = Date.now();
    const page = await getNews(r.a.url, { since, wait: 1 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(5_000);
    expect(page.json).toEqual({ items: [], timestamp: expect.any(Number), has_more: false });
    expect(page.json.timestamp).toBeGreaterThanOrEqual(since);
  });

  it('writers on both replicas, one reader alternating replicas with wait: every item exactly once, in commit order', async () => {
    const since = await cursorOf(r.a.url);
    const acked = new Set<string>();
    let writing = true;
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 40; i++) {
        const answer = await postNews(w % 2 ? r.a.url : r.b.url, { type: 'alternate', message: `w${w}-${i}` });
        expect(answer.status).toBe(200);
        acked.add(String(answer.json.news_id));
        if (i % 8 === 0) await new Promise((resolve) => setTimeout(resolve, 15)); // let polls be held in between
      }
    });
    const seen: Item[] = [];
    const reader = (async () => {
      let cursor = since;
      for (let n = 0; writing || seen.length < acked.size; n++) {
        const page = await getNews(n % 2 ? r.a.url : r.b.url, { since: cursor, wait: 2, limit: 7 });
        expect(page.status).toBe(200);
        seen.push(...page.json.items);
        cursor = page.json.timestamp;
      }
    })();
    await Promise.all(writers);
    writing = false;
    await reader;
    const ids = seen.map((i) => i.news_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids)).toEqual(acked);
    const stamps = seen.map((i) => i.timestamp);
    expect(stamps).toEqual([...stamps].sort((x, y) => x - y));
  });
});

/** A poll held with fetch, which the test can abandon (the client disconnects). */
function holdPoll(base: string, query: string, headers: Record<string, string> = {}): { answer: Promise<Response | undefined>; abort: () => void } {
  const controller = new AbortController();
  const answer = fetch(`${base}/news?${query}`, { headers, signal: controller.signal }).catch(() => undefined);
  return { answer, abort: () => controller.abort() };
}

const settleWithin = <T>(promise: Promise<T>, ms: number): Promise<T | 'still held'> =>
  Promise.race([promise, new Promise<'still held'>((resolve) => setTimeout(() => resolve('still held'), ms))]);

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('GET /news?wait=N (issue 18) — session scope: isolation, caps and disconnects', () => {
  const r = useReplicas({ news: { scope: 'session', maxWaitingPerClient: 2 } });

  it('session scope: a held poll needs a session id (400 missing_session_id), as a plain poll does', async () => {
    const answer = await getNews(r.a.url, { wait: 5 });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toBe('missing_session_id');
  });

  it("an item of session A never wakes B's held poll; it wakes A's, across replicas", async () => {
    const [sa, sb] = [{ 'Restap-Session-Id': newSessionId() }, { 'Restap-Session-Id': newSessionId() }];
    const heldA = getNews(r.a.url, { since: 0, wait: 10 }, sa);
    const heldB = getNews(r.a.url, { since: 0, wait: 2 }, sb);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ack = await postNews(r.b.url, { type: 'private', message: 'for A only' }, sa);
    const [pageA, pageB] = await Promise.all([heldA, heldB]);
    expect(pageA.json.items.map((i) => i.news_id)).toEqual([ack.json.news_id]);
    expect(pageB.json.items).toEqual([]);
  });

  it('held polls count against the per-client cap (429 beyond it); a disconnect frees the slot at once', async () => {
    const session = { 'Restap-Session-Id': newSessionId() };
    const waits = r.a.app.get(NewsWaits);
    const one = holdPoll(r.a.url, 'wait=30', session);
    const two = holdPoll(r.a.url, 'wait=30', session);
    await until(() => waits.held === 2);
    const third = await getNews(r.a.url, { wait: 30 }, session);
    expect(third.status).toBe(429);
    expect(third.json.error).toBe('too_many_requests');
    expect(third.headers.get('retry-after')).toBe('1');

    one.abort();
    await until(() => waits.held === 1, 1_000); // freed as soon as the connection closed
    const again = holdPoll(r.a.url, 'wait=30', session);
    expect(await settleWithin(again.answer, 500)).toBe('still held');
    expect(waits.held).toBe(2);
    two.abort();
    again.abort();
    await until(() => waits.held === 0, 1_000);
  });

  it('a plain poll (no wait) takes no slot: it is answered even while the client holds its cap', async () => {
    const session = { 'Restap-Session-Id': newSessionId() };
    const held = [holdPoll(r.b.url, 'wait=30', session), holdPoll(r.b.url, 'wait=30', session)];
    await until(() => r.b.app.get(NewsWaits).held === 2);
    expect((await getNews(r.b.url, {}, session)).status).toBe(200);
    held.forEach((h) => h.abort());
  });
});

describe('GET /news?wait=N (issue 18) — graceful shutdown', () => {
  const r = useReplicas();

  it('held polls answer at once when the instance shuts down, with a cursor that loses nothing', async () => {
    const since = await cursorOf(r.b.url);
    const polls = [getNews(r.b.url, { since, wait: 30 }), getNews(r.b.url, { since, wait: 30 })];
    await until(() => r.b.app.get(NewsWaits).held === 2);
    const started = Date.now();
    await r.b.close();
    const pages = await Promise.all(polls);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.json).toEqual({ items: [], timestamp: expect.any(Number), has_more: false });
      expect(page.json.timestamp).toBeGreaterThanOrEqual(since);
    }
    const ack = await postNews(r.a.url, { type: 'after', message: 'shutdown' });
    const next = await getNews(r.a.url, { since: pages[0].json.timestamp, wait: 5 });
    expect(next.json.items.map((i) => i.news_id)).toEqual([ack.json.news_id]);
  });
});

describe('GET /news?wait=N (issue 19) — the resync timer finds items whose wake-up was lost', () => {
  const r = useReplicas({ news: { resyncMs: 200 } });

  it('issue 41: a held poll gives back its HTTP parser: its answer says Connection: close; one answered at once keeps its connection', async () => {
    const session = newSessionId();
    const since = await cursorOf(r.a.url);
    const quick = await rawGet(r.a.url, `/news?since=0&limit=1`);
    expect(quick.status).toBe(200);
    expect(quick.connection).toBe('keep-alive');
    const held = rawGet(r.a.url, `/news?since=${since}&wait=10`, { 'Restap-Session-Id': session });
    await until(() => r.a.app.get(NewsWaits).held === 1);
    const ack = await postNews(r.b.url, { type: 'late', message: 'wakes the held poll' }, { 'Restap-Session-Id': session });
    const answer = await held;
    expect(answer.status).toBe(200);
    expect(answer.json.items.map((i) => i.news_id)).toEqual([ack.json.news_id]);
    expect(answer.connection).toBe('close');
  });

  it('an item written without a NOTIFY answers its feed\'s held poll on the next tick; in global scope the other held feeds are not re-read', async () => {
    const [sa, sb] = [newSessionId(), newSessionId()];
    const since = await cursorOf(r.a.url);
    const store = r.a.app.get(NewsStore);
    const reads: Array<string | undefined> = [];
    const page = store.page.bind(store);
    const spy = jest.spyOn(store, 'page').mockImplementation((query) => (reads.push(query.feed), page(query)));
    try {
      const heldA = getNews(r.a.url, { since, wait: 10 }, { 'Restap-Session-Id': sa });
      const heldB = getNews(r.a.url, { since, wait: 3 }, { 'Restap-Session-Id': sb });
      await until(() => r.a.app.get(NewsWaits).held === 2);
      reads.length = 0; // from here on, only wake-up reads
      // A third session's item moves the global sequence past B's cursor (and is woken by its NOTIFY).
      await postNews(r.b.url, { type: 'elsewhere', message: 'moves the global watermark' }, { 'Restap-Session-Id': newSessionId() });
      // Written around the module: no NOTIFY, only the resync timer can find it.
      const [row] = (await r.a.app.get(DataSource).query(
        `WITH s AS (UPDATE restap_news_sequences SET last_ts = last_ts + 1 WHERE sequence = $2 RETURNING last_ts)
         INSERT INTO restap_news (feed, ts, type, body) SELECT $1, s.last_ts, 'lost', '{"type":"lost","message":"no wake-up"}' FROM s RETURNING ts`,
        [feedOf(sa), GLOBAL_SEQUENCE],
      )) as Array<{ ts: string }>;
      const pageA = await heldA;
      expect(pageA.json.items.map((i) => [i.type, i.timestamp])).toEqual([['lost', Number(row.ts)]]);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // five more ticks
      expect(reads.filter((feed) => feed === feedOf(sb))).toEqual([]);
      const pageB = await heldB;
      expect(pageB.json.items).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });
});
