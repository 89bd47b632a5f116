import { NewsWakeups } from 'nestjs-restap';
import { NewsWaits } from 'nestjs-restap/core/news/news-waits';
import { getNews, postNews, type HttpAnswer, type WireNewsPage } from '../fixtures/news-http';
import { createTempPostgres, tempPostgresAvailable, type TempPostgres } from '../support/temp-postgres';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 18 — held polls across a PostgreSQL restart. A private server of the test's own (never the
// shared one), two replicas on it. While the server is down the listeners reconnect with backoff;
// a NOTIFY sent while a listener is away is lost, so after reconnecting each instance re-reads its
// held polls' feeds from their cursors. The slow resync timer is set far out (60 s), so answers
// within seconds come from NOTIFY or from that reconnect re-read.
jest.setTimeout(180_000);

const describeIf = tempPostgresAvailable() ? describe : describe.skip;

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** POST /news until the database answers again (503 storage_unavailable while it restarts). */
async function postWhenUp(base: string, body: Record<string, unknown>): Promise<HttpAnswer> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await postNews(base, body);
    if (answer.status === 200 || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describeIf('GET /news?wait= (issue 18) — PostgreSQL restarted under held polls', () => {
  let pg: TempPostgres;
  let a: ReliabilityApp;
  let b: ReliabilityApp;

  beforeAll(async () => {
    pg = await createTempPostgres();
    const restap = { news: { resyncMs: 60_000 } };
    a = await startReliabilityApp({ url: pg.url }, { restap });
    b = await startReliabilityApp({ url: pg.url }, { restap });
    for (const app of [a, b]) await until(() => app.app.get(NewsWakeups).connected, 10_000);
  });
  afterAll(async () => {
    await a?.close().catch(() => undefined);
    await b?.close().catch(() => undefined);
    pg?.destroy();
  });

  it('held polls answer (empty or with items) after the restart, and polling on from their timestamp loses and repeats nothing', async () => {
    const before = await postNews(b.url, { type: 'before', message: 'committed before the restart' });
    expect(before.status).toBe(200);
    const since = (await getNews(a.url, { since: 0, limit: 1000 })).json.timestamp;
    const started = Date.now();
    const held = [a, a, b].map((app) => getNews(app.url, { since, wait: 30 }));
    await until(() => a.app.get(NewsWaits).held === 2 && b.app.get(NewsWaits).held === 1, 10_000);

    pg.stop();
    pg.start();
    // Posted through B as soon as the server takes writes: A's listener may still be reconnecting.
    const after = await postWhenUp(b.url, { type: 'after', message: 'committed after the restart' });
    expect(after.status).toBe(200);

    const pages = await Promise.all(held);
    expect(Date.now() - started).toBeLessThan(25_000); // woken, not answered by their 30 s timeout
    for (const page of pages) {
      expect(page.status).toBe(200);
      const seen: WireNewsPage['items'] = [...page.json.items];
      // The next polls (alternating replicas) from the timestamp given lose nothing.
      let cursor = page.json.timestamp;
      for (let n = 0; !seen.some((i) => i.news_id === after.json.news_id) && n < 4; n++) {
        const next = await getNews(n % 2 ? a.url : b.url, { since: cursor, wait: 10 });
        expect(next.status).toBe(200);
        seen.push(...next.json.items);
        cursor = next.json.timestamp;
      }
      expect(seen.map((i) => i.news_id)).toEqual([after.json.news_id]);
    }
    // The listeners are back: a poll held on A is woken within a second by an item posted to B.
    await until(() => a.app.get(NewsWakeups).connected && b.app.get(NewsWakeups).connected, 15_000);
    const cursor = (await getNews(a.url, { since, limit: 1000 })).json.timestamp;
    const poll = getNews(a.url, { since: cursor, wait: 20 });
    await until(() => a.app.get(NewsWaits).held === 1, 5_000);
    const posted = Date.now();
    const woke = await postNews(b.url, { type: 'woken', message: 'NOTIFY works again' });
    expect((await poll).json.items.map((i) => i.news_id)).toEqual([woke.json.news_id]);
    expect(Date.now() - posted).toBeLessThan(1_000);
  });
});
