import { NewsWakeups } from 'nestjs-restap';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { NEWS_CHANNEL, pgConfigOf } from 'nestjs-restap/core/news/pg-news.channel';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { getNews, postNews } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from '../reliability/support/reliability-app';

// Issue 41 — a commit's wake-up NOTIFY goes out only when another instance listens on its channel:
// a lone instance sends none (no statement, no echo to read back), and a replica that starts later
// is woken as before. Instances announce themselves on the channel (`2 <instance> hi|here <ms>`).
// The resync timer is set far out, so a wake-up within a second is a NOTIFY's (or a `hi`'s re-read).
jest.setTimeout(120_000);

const news = { resyncMs: 60_000 };

async function listening(app: ReliabilityApp): Promise<void> {
  const wakeups = app.app.get(NewsWakeups);
  while (!wakeups.listening) await new Promise((resolve) => setTimeout(resolve, 20));
}

async function cursorOf(base: string): Promise<number> {
  let since = 0;
  for (;;) {
    const page = await getNews(base, { since, limit: 1000 });
    since = page.json.timestamp;
    if (!page.json.has_more) return since;
  }
}

describe('news wake-ups go out only when another instance listens (issue 41)', () => {
  let db: ReplicaDatabase;
  let a: ReliabilityApp;
  let b: ReliabilityApp | undefined;
  let raw: Client;
  const payloads: string[] = [];

  beforeAll(async () => {
    db = await openReplicaDatabase();
    a = await startReliabilityApp({ url: db.url }, { restap: { news } });
    await listening(a);
    // A plain LISTEN of the test, not an instance: it counts what goes out and is never a peer.
    raw = new Client(pgConfigOf('auto', a.app.get(DataSource)));
    await raw.connect();
    raw.on('notification', (n) => payloads.push(n.payload ?? ''));
    await raw.query(`LISTEN ${NEWS_CHANNEL}`);
  });
  afterAll(async () => {
    await raw?.end().catch(() => undefined);
    await b?.close().catch(() => undefined);
    await a?.close().catch(() => undefined);
    await db?.close();
  });

  it('a lone instance sends no NOTIFY for its commits once its first second has passed, and its held polls still wake', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    payloads.length = 0;
    const since = await cursorOf(a.url);
    const held = getNews(a.url, { since, wait: 20 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const posted = Date.now();
    for (let i = 0; i < 5; i++) expect((await postNews(a.url, { type: 'alone', message: `m${i}` })).status).toBe(200);
    const page = await held;
    expect(Date.now() - posted).toBeLessThan(1_000);
    expect(page.json.items.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(payloads.filter((p) => p.startsWith('1 '))).toEqual([]);
  });

  it('a replica that starts later is announced, and each wakes the other\'s held polls within a second', async () => {
    payloads.length = 0;
    b = await startReliabilityApp({ url: db.url }, { restap: { news } });
    await listening(b);
    const bId = b.app.get(NewsWakeups).instanceId;
    const aId = a.app.get(NewsWakeups).instanceId;
    // B says hi once it listens; A answers here.
    const announced = (who: string) => payloads.some((p) => p.startsWith(`2 ${who} `));
    for (let waited = 0; !(announced(bId) && announced(aId)) && waited < 2_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(announced(bId) && announced(aId)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // past B's first second too: both rely on what they heard

    for (const [poller, poster] of [[b, a], [a, b]] as const) {
      const since = await cursorOf(poller.url);
      const held = getNews(poller.url, { since, wait: 20 });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the poll is held by now
      const posted = Date.now();
      const ack = await postNews(poster.url, { type: 'across', message: 'woken' });
      const page = await held;
      expect(Date.now() - posted).toBeLessThan(1_000);
      expect(page.json.items.map((i) => i.news_id)).toEqual([ack.json.news_id]);
    }
    expect(payloads.filter((p) => p.startsWith(`1 ${aId} `)).length).toBeGreaterThan(0);
    expect(payloads.filter((p) => p.startsWith(`1 ${bId} `)).length).toBeGreaterThan(0);
  });
});
