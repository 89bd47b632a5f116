import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { useSampleAgent } from '../support/sample-app';
import { newSessionId, postNews } from '../fixtures/news-http';

jest.setTimeout(60_000);

describe('POST /news Idempotency-Key: one key, one stored item per feed', () => {
  const agent = useSampleAgent();
  const rowsWithKey = async (key: string): Promise<number> => {
    const rows = (await agent.app.get(DataSource).query(`SELECT count(*)::int AS n FROM restap_news WHERE idempotency_key = $1`, [key])) as Array<{ n: number }>;
    return rows[0].n;
  };

  it('replays the original acknowledgement (same news_id) for the same key and body, storing one row', async () => {
    const key = randomUUID();
    const item = { type: 'reply', in_reply_to: 'query_1', message: 'done', data: { a: 1, b: [true] } };
    const first = await postNews(agent.url, item, { 'Idempotency-Key': key });
    const again = await postNews(agent.url, item, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(await rowsWithKey(key)).toBe(1);
  });

  it('treats the same item with its keys in another order or other whitespace as the same request', async () => {
    const key = randomUUID();
    const first = await postNews(agent.url, '{"type":"t","data":{"x":1,"y":2}}', { 'Idempotency-Key': key });
    const again = await postNews(agent.url, '{ "data": { "y": 2, "x": 1 }, "type": "t" }', { 'Idempotency-Key': key });
    expect(again.json.news_id).toBe(first.json.news_id);
  });

  it('answers 422 idempotency_key_reused for the same key with a different body, and keeps the original', async () => {
    const key = randomUUID();
    const first = await postNews(agent.url, { type: 'reply', message: 'one' }, { 'Idempotency-Key': key });
    const other = await postNews(agent.url, { type: 'reply', message: 'two' }, { 'Idempotency-Key': key });
    expect(other.status).toBe(422);
    expect(other.json).toEqual({ error: 'idempotency_key_reused', message: expect.any(String) });
    expect(await rowsWithKey(key)).toBe(1);
    const replay = await postNews(agent.url, { type: 'reply', message: 'one' }, { 'Idempotency-Key': key });
    expect(replay.json.news_id).toBe(first.json.news_id);
  });

  it('stores one row for 20 concurrent requests with one key, all acknowledged with the same news_id', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => postNews(agent.url, { type: 'race', message: 'same' }, { 'Idempotency-Key': key })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.json.news_id)).size).toBe(1);
    expect(await rowsWithKey(key)).toBe(1);
  });

  it('lets exactly one of two concurrent bodies win a key: the winner\'s copies get its ack, the others 422', async () => {
    const key = randomUUID();
    const bodies = Array.from({ length: 20 }, (_, i) => ({ type: 'race', message: i % 2 ? 'odd' : 'even' }));
    const answers = await Promise.all(bodies.map((b) => postNews(agent.url, b, { 'Idempotency-Key': key })));
    const won = answers.filter((a) => a.status === 200);
    const lost = answers.filter((a) => a.status === 422);
    expect(won.length + lost.length).toBe(20);
    expect(won.length).toBe(10);
    expect(new Set(won.map((a) => a.json.news_id)).size).toBe(1);
    expect(await rowsWithKey(key)).toBe(1);
  });

  it('scopes keys to the feed: one key in two sessions and in the global feed stores three items', async () => {
    const key = randomUUID();
    const item = { type: 'reply', message: 'same' };
    const acks = [
      await postNews(agent.url, item, { 'Idempotency-Key': key }),
      await postNews(agent.url, item, { 'Idempotency-Key': key, 'Restap-Session-Id': newSessionId() }),
      await postNews(agent.url, item, { 'Idempotency-Key': key, 'Restap-Session-Id': newSessionId() }),
    ];
    expect(new Set(acks.map((a) => a.json.news_id)).size).toBe(3);
    expect(await rowsWithKey(key)).toBe(3);
  });

  it('stores two items for the same body without a key (no key, no deduplication)', async () => {
    const a = await postNews(agent.url, { type: 'dup' });
    const b = await postNews(agent.url, { type: 'dup' });
    expect(a.json.news_id).not.toBe(b.json.news_id);
  });
});
