import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { RunningApp, startSample } from '../support/sample-app';
import { getNews, postNews, readAll } from '../fixtures/news-http';

jest.setTimeout(120_000);

/** Strings that break naive storage: astral emoji, ZWJ sequences, combining marks, RTL, CJK, escapes JSON must keep. */
const TRICKY = {
  type: 'note.ünïcødé',
  from: 'agent-🦊',
  message: 'Zoë 👩‍👩‍👧‍👦 e\u0301 \u202Eשלום\u202C 中文 𝒳 \u2028\u2029 "quotes" \\ back\tslash',
  data: { nul: '\u0000', lone: '\ud800', bell: '\u0007', nested: [{ 'ключ': ['値', null, true, 0.1, -0, 1e21] }] },
  extra_field: { kept: 'as sent' },
  'key with spaces & ünïcode': 1,
};

describe('Stored items are durable and read back byte for byte', () => {
  let db: TestDatabase;
  let dataDir: string | undefined;
  let agent: RunningApp | undefined;
  const start = async (): Promise<RunningApp> => (agent = await startSample(db.target));

  beforeAll(async () => {
    dataDir = process.env.TEST_DATABASE_URL ? undefined : mkdtempSync(join(tmpdir(), 'restap-news-'));
    db = await createTestDatabase({ dataDir });
    await start();
  });
  afterAll(async () => {
    await agent?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every field a client sends, extra ones included, and serves it as the same JSON text', async () => {
    // A "__proto__" member is an ordinary field in JSON: kept, not dropped or merged into a prototype.
    const sent = `${JSON.stringify(TRICKY).slice(0, -1)},"__proto__":{"polluted":true}}`;
    const ack = await postNews((agent as RunningApp).url, sent);
    expect(ack.status).toBe(200);
    const page = await getNews((agent as RunningApp).url, { limit: 1000 });
    expect(page.text).toContain(`${sent.slice(0, -1)},"timestamp":`);
    const item = page.json.items.find((i) => i.news_id === ack.json.news_id);
    expect(item).toEqual({ ...JSON.parse(sent), timestamp: expect.any(Number), news_id: ack.json.news_id });
  });

  it('keeps items, their order, their idempotency keys and the timestamp sequence across an application restart', async () => {
    const url = (agent as RunningApp).url;
    const key = 'restart-key-1';
    const keyed = await postNews(url, { type: 'before-restart', message: 'kept' }, { 'Idempotency-Key': key });
    const before = await getNews(url, { limit: 1000 });
    const items = await readAll(url);
    await (agent as RunningApp).close();
    agent = undefined;

    const restarted = await start();
    const after = await getNews(restarted.url, { limit: 1000 });
    expect(after.text).toBe(before.text);
    const replay = await postNews(restarted.url, { type: 'before-restart', message: 'kept' }, { 'Idempotency-Key': key });
    expect(replay.json.news_id).toBe(keyed.json.news_id);
    const next = await postNews(restarted.url, { type: 'after-restart' });
    const all = await readAll(restarted.url);
    expect(all.map((i) => i.news_id)).toEqual([...items.map((i) => i.news_id), next.json.news_id]);
    expect(all.at(-1)?.timestamp).toBeGreaterThan(items.at(-1)?.timestamp as number);
  });
});
