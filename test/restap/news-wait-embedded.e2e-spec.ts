import { NewsWakeups } from 'nestjs-restap';
import { getNews, postNews } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from '../reliability/support/reliability-app';

// Issue 18 — on the embedded PGlite database (the zero-setup default) held polls are woken by an
// in-process signal: LISTEN through PGlite's node-postgres adapter never delivers a NOTIFY, and no
// other process can write to that database. The resync timer is far out: the wake-up is the signal's.
jest.setTimeout(120_000);

describe('GET /news?wait= on the embedded database (issue 18)', () => {
  let app: ReliabilityApp;
  beforeAll(async () => {
    app = await startReliabilityApp({ dataDir: 'memory://' }, { restap: { news: { resyncMs: 60_000 } } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('uses the in-process signal, and a held poll answers within a second with the item posted meanwhile', async () => {
    expect(app.app.get(NewsWakeups).transport).toBe('in-process');
    const since = (await getNews(app.url)).json.timestamp;
    const held = getNews(app.url, { since, wait: 20 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posted = Date.now();
    const ack = await postNews(app.url, { type: 'local', message: 'woken in-process' });
    const page = await held;
    expect(Date.now() - posted).toBeLessThan(1_000);
    expect(page.json.items.map((i) => i.news_id)).toEqual([ack.json.news_id]);
  });

  it('NewsWakeups.onCommitted fires for every committed item with its feed and timestamp (the other doors use it)', async () => {
    const hints: Array<{ feed: string; ts: number }> = [];
    const stop = app.app.get(NewsWakeups).onCommitted((hint) => hints.push(hint));
    const ack = await postNews(app.url, { type: 'hint' });
    stop();
    await postNews(app.url, { type: 'after unsubscribe' });
    const item = (await getNews(app.url, { since: 0, limit: 1000 })).json.items.find((i) => i.news_id === ack.json.news_id);
    expect(hints).toEqual([{ feed: 'global', ts: item?.timestamp }]);
  });
});
