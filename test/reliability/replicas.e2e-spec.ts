import type { TalkContext } from 'nestjs-restap';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { openTalkStream, postTalk } from '../fixtures/talk-sse';
import { getNews, postNews, type WireNewsPage } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 6, item 7 — two app instances on one PostgreSQL behave as one agent: a session begun on A
// continues on B, news posted on A is read (losslessly) on B. Needs a PostgreSQL server: the one of
// TEST_DATABASE_URL, else one the test starts itself (two embedded databases are two agents).
jest.setTimeout(120_000);

describe('issue 6, item 7 — two replicas on one PostgreSQL', () => {
  let shared: ReplicaDatabase | undefined;
  let a: ReliabilityApp;
  let b: ReliabilityApp;

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    const url = shared.url;
    a = await startReliabilityApp({ url });
    b = await startReliabilityApp({ url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await shared?.close();
  });

  it('a session begun on A continues on B (and back on A), with the whole history, over JSON and SSE', async () => {
    const seen: Array<{ app: string; history: string[] }> = [];
    for (const [name, app] of [['A', a], ['B', b]] as const) {
      app.brain.behaviour = (ctx: TalkContext) => {
        seen.push({ app: name, history: ctx.history.map((t) => `${t.role}:${t.content}`) });
        return `noted: ${ctx.message}`;
      };
    }
    const first = await postTalk(`${a.url}/talk`, { message: 'my name is Ada' });
    const { session_id: session } = (await first.json()) as { session_id: string };
    const header = { 'Restap-Session-Id': session };
    expect((await postTalk(`${b.url}/talk`, { message: 'what is my name?' }, header)).status).toBe(200);
    await (await openTalkStream(`${a.url}/talk`, { message: 'and again?' }, header)).rest();
    expect(seen).toEqual([
      { app: 'A', history: [] },
      { app: 'B', history: ['user:my name is Ada', 'assistant:noted: my name is Ada'] },
      { app: 'A', history: ['user:my name is Ada', 'assistant:noted: my name is Ada', 'user:what is my name?', 'assistant:noted: what is my name?'] },
    ]);
  });

  it('news written on A and B at once is read losslessly, in order, on either: no item missed, none repeated', async () => {
    const acked = new Set<string>();
    let writing = true;
    const writers = Array.from({ length: 6 }, async (_, w) => {
      for (let i = 0; i < 60; i++) {
        const answer = await postNews(w % 2 ? a.url : b.url, { type: 'replica', message: `w${w}-${i}` });
        expect(answer.status).toBe(200);
        acked.add(String(answer.json.news_id));
      }
    });
    const poll = async (base: string): Promise<WireNewsPage['items']> => {
      const items: WireNewsPage['items'] = [];
      let since = 0;
      for (let idle = 0; idle < 3; ) {
        const page = await getNews(base, { since, limit: 50 });
        expect(page.status).toBe(200);
        items.push(...page.json.items);
        since = page.json.timestamp;
        if (!writing && !page.json.has_more && !page.json.items.length) idle++;
        await new Promise((r) => setTimeout(r, page.json.has_more ? 0 : 10));
      }
      return items;
    };
    const pollers = [poll(b.url), poll(a.url)];
    await Promise.all(writers);
    writing = false;
    for (const items of await Promise.all(pollers)) {
      const ids = items.filter((i) => i.type === 'replica').map((i) => i.news_id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(acked);
      const stamps = items.map((i) => i.timestamp);
      expect(stamps).toEqual([...stamps].sort((x, y) => x - y));
    }
    expect(acked.size).toBe(360);
  });

  it('an Idempotency-Key sent to A and replayed on B gives the same acknowledgement', async () => {
    const key = { 'Idempotency-Key': 'replica-key-1' };
    const one = await postNews(a.url, { type: 'once', message: 'x' }, key);
    const two = await postNews(b.url, { type: 'once', message: 'x' }, key);
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(two.json.news_id).toBe(one.json.news_id);
  });
});
