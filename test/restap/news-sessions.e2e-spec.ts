import { DataSource } from 'typeorm';
import { useSampleAgent } from '../support/sample-app';
import { getNews, newSessionId, postNews, readAll } from '../fixtures/news-http';

jest.setTimeout(60_000);

const ids = (items: Array<{ news_id: string }>): string[] => items.map((i) => i.news_id);
const header = (sessionId: string): Record<string, string> => ({ 'Restap-Session-Id': sessionId });

describe('news.scope "global" (spec, "Sessions (optional)", "Relation to /news")', () => {
  const agent = useSampleAgent({ newsScope: 'global' });

  it('accepts /news without a session_id: global news is not session-scoped', async () => {
    expect((await postNews(agent.url, { type: 'status', message: 'global' })).status).toBe(200);
    expect((await getNews(agent.url)).status).toBe(200);
  });

  it('tags an item posted with a session_id to that session; GET with the session returns its items only, GET without returns all', async () => {
    const [a, b] = [newSessionId(), newSessionId()];
    const g = (await postNews(agent.url, { type: 'g' })).json.news_id as string;
    const fromA = (await postNews(agent.url, { type: 'a', session_id: a })).json.news_id as string;
    const fromB = (await postNews(agent.url, { type: 'b' }, header(b))).json.news_id as string;
    expect(ids(await readAll(agent.url, header(a)))).toEqual([fromA]);
    expect(ids(await readAll(agent.url, header(b)))).toEqual([fromB]);
    expect(ids(await readAll(agent.url))).toEqual(expect.arrayContaining([g, fromA, fromB]));
  });

  it('takes the session from the Restap-Session-Id header over the query over the body', async () => {
    const [h, q, b] = [newSessionId(), newSessionId(), newSessionId()];
    const one = (await postNews(agent.url, { type: 'x', session_id: b }, header(h), `/news?session_id=${q}`)).json.news_id as string;
    const two = (await postNews(agent.url, { type: 'x', session_id: b }, {}, `/news?session_id=${q}`)).json.news_id as string;
    const three = (await postNews(agent.url, { type: 'x', session_id: b })).json.news_id as string;
    expect(ids(await readAll(agent.url, header(h)))).toEqual([one]);
    expect(ids(await readAll(agent.url, header(q)))).toEqual([two]);
    expect(ids(await readAll(agent.url, header(b)))).toEqual([three]);
    const viaQuery = await getNews(agent.url, { session_id: q, limit: 1000 });
    expect(ids(viaQuery.json.items)).toEqual([two]);
    const headerWins = await getNews(agent.url, { session_id: q, limit: 1000 }, header(h));
    expect(ids(headerWins.json.items)).toEqual([one]);
  });

  it.each([
    ['15 characters', 'a'.repeat(15)],
    ['129 characters', 'a'.repeat(129)],
    ['a character outside [A-Za-z0-9._-]', 'abcdefghijklmno/p'],
  ])('rejects a session_id of %s with 400 invalid_session_id in the header, the query and the body', async (_case, bad) => {
    const answers = [
      await postNews(agent.url, { type: 'x' }, header(bad)),
      await postNews(agent.url, { type: 'x' }, {}, `/news?session_id=${encodeURIComponent(bad)}`),
      await postNews(agent.url, { type: 'x', session_id: bad }),
      await getNews(agent.url, {}, header(bad)),
      await getNews(agent.url, { session_id: bad }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_session_id', message: expect.any(String) });
      expect(res.text).not.toContain(bad);
    }
  });

  it('rejects a non-string body session_id with 400 invalid_session_id, and a malformed one even when the header has a valid one', async () => {
    expect((await postNews(agent.url, { type: 'x', session_id: 12345678901234567 })).json.error).toBe('invalid_session_id');
    expect((await postNews(agent.url, { type: 'x', session_id: 'short' }, header(newSessionId()))).json.error).toBe('invalid_session_id');
  });

  it('never echoes, stores or serves a session id that arrived in the query string', async () => {
    const secret = newSessionId();
    const ack = await postNews(agent.url, { type: 'q', message: 'via query' }, {}, `/news?session_id=${secret}`);
    const page = await getNews(agent.url, { session_id: secret });
    for (const res of [ack, page, await getNews(agent.url, { limit: 1000 })]) expect(res.text).not.toContain(secret);
    const rows = (await agent.app.get(DataSource).query(`SELECT feed, body::text AS body, idempotency_key FROM restap_news`)) as Array<Record<string, string>>;
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows.some((r) => /^[0-9a-f]{64}$/.test(r.feed))).toBe(true);
  });
});

describe('news.scope "session": every request carries a session_id, each session sees only its feed', () => {
  const agent = useSampleAgent({ newsScope: 'session' });

  it('rejects GET and POST without a session_id with 400 {"error": "missing_session_id"}', async () => {
    for (const res of [await postNews(agent.url, { type: 'x' }), await getNews(agent.url)]) {
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'missing_session_id', message: expect.any(String) });
    }
  });

  it('isolates sessions both ways: A never sees B\'s items and B never sees A\'s', async () => {
    const [a, b] = [newSessionId(), newSessionId()];
    const fromA = [(await postNews(agent.url, { type: 'a1' }, header(a))).json.news_id, (await postNews(agent.url, { type: 'a2', session_id: a })).json.news_id];
    const fromB = [(await postNews(agent.url, { type: 'b1' }, {}, `/news?session_id=${b}`)).json.news_id];
    expect(ids(await readAll(agent.url, header(a)))).toEqual(fromA);
    expect(ids(await readAll(agent.url, header(b)))).toEqual(fromB);
    expect(ids((await getNews(agent.url, { session_id: b })).json.items)).toEqual(fromB);
    expect(ids(await readAll(agent.url, header(newSessionId())))).toEqual([]);
  });

  it('still rejects malformed ids with invalid_session_id (not missing_session_id)', async () => {
    expect((await getNews(agent.url, {}, header('too-short'))).json.error).toBe('invalid_session_id');
  });

  it('declares the requirement in discovery: sessions {supported: true, required: true} on news and news_receive', async () => {
    const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
    for (const id of ['news', 'news_receive']) {
      expect(catalog.capabilities.find((c: { id: string }) => c.id === id).sessions).toEqual({ supported: true, required: true });
    }
  });

  it('publishes a capability\'s job.completed into the caller\'s session feed, and nowhere without a session', async () => {
    const s = newSessionId();
    const call = (headers: Record<string, string>) =>
      fetch(`${agent.url}/text/reverse`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{"text":"abc"}' });
    const result = await (await call(header(s))).json();
    expect((await call({})).status).toBe(200);
    const items = await readAll(agent.url, header(s));
    expect(items).toEqual([expect.objectContaining({ type: 'job.completed', job_id: result.job_id })]);
    const count = (await agent.app.get(DataSource).query(`SELECT count(*)::int AS n FROM restap_news WHERE type = 'job.completed'`)) as Array<{ n: number }>;
    expect(count[0].n).toBe(1);
  });
});
