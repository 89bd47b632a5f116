import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { APPEND_GLOBAL_SQL, PAGE_ALL_SQL, PAGE_FEED_SQL, pageSql, recentSql } from '../../libs/restap/src/persistence/typeorm-news.sql';
import { LOAD_HISTORIES } from '../../libs/restap/src/persistence/typeorm-session.store';
import { createTestDatabase, usingServer } from '../support/test-database';
import { startSample, useSampleAgent } from '../support/sample-app';
import { newSessionId, readAll } from '../fixtures/news-http';
import { pollUntil, writeConcurrently, WriteLoad } from '../fixtures/news-load';

jest.setTimeout(180_000);

type Seen = Awaited<ReturnType<typeof pollUntil>>;

/** The rule: every acknowledged item seen exactly once, in strictly increasing timestamp order. */
function expectLossless(seen: Seen, load: WriteLoad, extra: string[] = []): void {
  const ids = seen.map((i) => i.news_id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids)).toEqual(new Set([...load.acked, ...extra]));
  for (let k = 1; k < seen.length; k++) expect(seen[k].timestamp).toBeGreaterThan(seen[k - 1].timestamp);
  const tsOf = new Map(seen.map((i) => [i.news_id, i.timestamp]));
  for (const ids of load.perWriter) {
    for (let k = 1; k < ids.length; k++) expect(tsOf.get(ids[k])).toBeGreaterThan(tsOf.get(ids[k - 1]) as number);
  }
}

const agent = useSampleAgent();

describe('Lossless polling: since = the largest timestamp seen never misses or repeats an item', () => {

  it('holds under 20 concurrent writers × 100 items, for pollers paging by item timestamps and by the answer timestamp', async () => {
    let done = false;
    const pollers = [
      pollUntil(agent.url, { limit: 37, cursor: 'items', stop: () => done }),
      pollUntil(agent.url, { limit: 100, cursor: 'answer', stop: () => done }),
    ];
    const load = await writeConcurrently(agent.url, 20, 100);
    done = true;
    const [byItems, byAnswer] = await Promise.all(pollers);
    expect(load.acked.size).toBe(2000);
    expectLossless(byItems, load);
    expectLossless(byAnswer, load);
    // Many of them shared a millisecond of wall-clock time, yet no two share a timestamp.
    const rows = (await agent.app.get(DataSource).query(`SELECT count(DISTINCT ts)::int AS n, count(*)::int AS total FROM restap_news`)) as Array<{ n: number; total: number }>;
    expect(rows[0].n).toBe(rows[0].total);
  });

  (usingServer() ? it : it.skip)('holds when a writer takes its timestamp and commits late: later writers wait for it, none gets a smaller timestamp', async () => {
    const since = (await readAll(agent.url)).at(-1)?.timestamp ?? 0;
    let done = false;
    const poller = pollUntil(agent.url, { limit: 50, cursor: 'items', stop: () => done, since });
    let loadFinished = false;
    const load = writeConcurrently(agent.url, 10, 100).finally(() => (loadFinished = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const slow = new Client({ connectionString: agent.db.url });
    await slow.connect();
    await slow.query('BEGIN');
    const held = (await slow.query(APPEND_GLOBAL_SQL, ['global', 1, ['global'], ['late'], ['{"type":"late"}'], [null], [null]])).rows[0] as { id: string };
    await new Promise((resolve) => setTimeout(resolve, 400)); // the HTTP writers queue on the sequence row meanwhile
    expect(loadFinished).toBe(false);
    await slow.query('COMMIT');
    await slow.end();
    const written = await load;
    done = true;
    expectLossless(await poller, written, [`news_${held.id}`]);
  });

  it('gives each session feed strictly increasing timestamps in session scope too', async () => {
    const sessionDb = await createTestDatabase();
    const sessionAgent = await startSample(sessionDb.target, { newsScope: 'session' });
    try {
      const sessions = [newSessionId(), newSessionId()];
      const headers = (w: number) => ({ 'Restap-Session-Id': sessions[w % 2] });
      let done = false;
      const pollers = sessions.map((s) => pollUntil(sessionAgent.url, { limit: 40, cursor: 'items', stop: () => done, headers: { 'Restap-Session-Id': s } }));
      const load = await writeConcurrently(sessionAgent.url, 10, 40, headers);
      done = true;
      const seen = await Promise.all(pollers);
      for (const [k, items] of seen.entries()) {
        const mine = load.perWriter.filter((_, w) => w % 2 === k);
        expectLossless(items, { acked: new Set(mine.flat()), perWriter: mine });
      }
    } finally {
      await sessionAgent.close();
      await sessionDb.drop();
    }
  });
});

describe('GET /news reads filter and order on the same index key (fast at millions of rows)', () => {
  const BIG = 'b'.repeat(64);
  const SMALL = md5Twice(7);

  beforeAll(async () => {
    const ds = agent.app.get(DataSource);
    // 60k rows: 5% in one big session feed, 5% global, the rest over 500 small feeds.
    await ds.query(`INSERT INTO restap_news (feed, ts, type, body)
      SELECT CASE g % 20 WHEN 0 THEN '${BIG}' WHEN 1 THEN 'global' ELSE md5((g % 500)::text) || md5((g % 500)::text) END,
             1700000000000 + g, 't', '{"type":"t"}'
      FROM generate_series(1, 60000) AS g`);
    await ds.query(`ANALYZE restap_news`);
  });

  const plan = async (sql: string, params: unknown[]): Promise<string> => {
    const rows = (await agent.app.get(DataSource).query(`EXPLAIN (FORMAT JSON) ${sql}`, params)) as Array<{ 'QUERY PLAN': unknown }>;
    return JSON.stringify(rows[0]['QUERY PLAN']);
  };
  const scansOfNews = (text: string): string[] =>
    [...text.matchAll(/"Node Type":"([^"]+)"[^{}]*?"Relation Name":"restap_news"/g)].map((m) => m[1]);

  it('polls a session feed through the (feed, ts) index, as a range from (feed, since) to the end of the feed', async () => {
    const text = await plan(PAGE_FEED_SQL, ['global', SMALL, 1700000030000, 101]);
    expect(text).toMatch(/"Index Name":"restap_news_feed_ts_uq"[^{}]*"Index Cond":"\(\(ROW\(feed, ts\) > ROW\([^"]*\) AND \(feed <= /);
    expect(text).not.toContain('restap_news_pkey');
    expect(scansOfNews(text)).not.toContain('Seq Scan');
  });

  it('polls a large feed with an index range on ts under the LIMIT (never the primary key or a seq scan)', async () => {
    const text = await plan(PAGE_FEED_SQL, ['global', BIG, 1700000000000, 101]);
    expect(text).toMatch(/"Node Type":"Limit".*"Index Name":"restap_news_(feed_ts_uq|ts_idx)"[^{}]*"Index Cond":"[^"]*ts\)? > /);
    expect(text).not.toContain('restap_news_pkey');
    expect(scansOfNews(text)).not.toContain('Seq Scan');
  });

  it('polls every feed with an ordered range scan of (ts) under the LIMIT: no sort, no primary key', async () => {
    const text = await plan(PAGE_ALL_SQL, ['global', 1700000000000, 101]);
    expect(text).toMatch(/"Node Type":"Limit".*"Node Type":"Index Scan".*"Index Name":"restap_news_ts_idx"/);
    expect(text).not.toContain('"Node Type":"Sort"');
    expect(text).not.toContain('restap_news_pkey');
  });

  it("reads the news a /talk turn sees — a new session's empty feed beside a huge global feed — through (feed, ts), never by walking (ts)", async () => {
    // Make the global feed the bulk of the table: the case where a feed hidden behind a LATERAL
    // was planned as "global" and a new session's turn walked the whole (ts) index.
    const ds = agent.app.get(DataSource);
    await ds.query(`INSERT INTO restap_news (feed, ts, type, body)
      SELECT 'global', 1700001000000 + g, 't', '{"type":"t"}' FROM generate_series(1, 100000) AS g`);
    await ds.query(`ANALYZE restap_news`);
    const fresh = md5Twice(100_001);
    const text = await plan(recentSql(2), [20, 'global', fresh, 8000]);
    expect(text).toMatch(new RegExp(`"Index Name":"restap_news_feed_ts_uq"[^{}]*"Index Cond":"\\(feed = '${fresh}'`));
    expect(text).not.toMatch(new RegExp(`"Filter":"\\(feed = '${fresh}'`));
    expect(scansOfNews(text)).not.toContain('Seq Scan');
  });

  // The module runs these as prepared statements (persistence/restap-sql.ts): after five runs
  // PostgreSQL may switch to one generic plan that knows no parameter value. It must still use
  // the same index ranges, whatever the feed.
  const genericPlan = async (sql: string, args: string): Promise<string> => {
    const runner = agent.app.get(DataSource).createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SET plan_cache_mode = force_generic_plan`);
      await runner.query(`PREPARE restap_generic_probe AS ${sql}`);
      const rows = (await runner.query(`EXPLAIN (FORMAT JSON) EXECUTE restap_generic_probe(${args})`)) as Array<{ 'QUERY PLAN': unknown }>;
      return JSON.stringify(rows[0]['QUERY PLAN']);
    } finally {
      await runner.query(`DEALLOCATE restap_generic_probe`).catch(() => undefined);
      await runner.query(`RESET plan_cache_mode`);
      await runner.release();
    }
  };

  it('keeps the same index ranges in the generic plans of the prepared statements (polls, the news of a turn, history)', async () => {
    const feed = await genericPlan(PAGE_FEED_SQL, `'global', '${SMALL}', 1700000030000, 101`);
    expect(feed).toMatch(/"Index Name":"restap_news_feed_ts_uq"[^{}]*"Index Cond":"\(\(ROW\(feed, ts\) > ROW\(\$2, \$3\)\) AND \(feed <= \$2\)\)"/);
    expect(scansOfNews(feed)).not.toContain('Seq Scan');
    const all = await genericPlan(PAGE_ALL_SQL, `'global', 1700000000000, 101`);
    expect(all).toMatch(/"Index Name":"restap_news_ts_idx"[^{}]*"Index Cond":"\(ts > \$2\)/);
    expect(all).not.toContain('restap_news_pkey');
    const recent = await genericPlan(recentSql(2), `20, 'global', '${md5Twice(100_002)}', 8000`);
    expect(recent.match(/"Index Name":"restap_news_feed_ts_uq"[^{}]*"Index Cond":"\(feed = \$\d\)"/g)).toHaveLength(2);
    expect(recent).not.toMatch(/"Filter":"\(feed = /);
    // Sessions and turns in numbers, analyzed, so the planner does not pick a plan for empty tables.
    const ds = agent.app.get(DataSource);
    await ds.query(`INSERT INTO restap_sessions (key_hash) SELECT sha256(convert_to('plan ' || g, 'UTF8')) FROM generate_series(1, 5000) g ON CONFLICT DO NOTHING`);
    await ds.query(`INSERT INTO restap_turns (session_id, message_id, role, content) SELECT s.id, 'msg_' || g, 'user', 'hi' FROM restap_sessions s, generate_series(1, 4) g`);
    await ds.query('ANALYZE restap_sessions');
    await ds.query('ANALYZE restap_turns');
    const history = await genericPlan(LOAD_HISTORIES.text, `ARRAY['\\x00', '\\x01']::bytea[], 50, 8000`);
    expect(history).toContain('"Index Name":"restap_sessions_key_hash_uq"');
    expect(history).toContain('"Index Name":"restap_turns_session_idx"');
    expect(history).not.toContain('Seq Scan');
  });
});

describe('GET /news page statements with their LIMIT written in take a generic plan that keeps the range (no planning per poll)', () => {
  // A table that is nearly all one feed (the bench's 1M global items): with a generic plan that
  // knows no feed, `feed = $2 AND ts > $3` walked the (ts) index and filtered every row out for a
  // new session's feed (518 ms at 1M rows).
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let app: Awaited<ReturnType<typeof startSample>>;

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startSample(db.target);
    const ds = app.app.get(DataSource);
    await ds.query(`INSERT INTO restap_news (feed, ts, type, body)
      SELECT 'global', 1700000000000 + g, 't', '{"type":"t"}' FROM generate_series(1, 200000) AS g`);
    await ds.query(`INSERT INTO restap_news_sequences (sequence, last_ts) VALUES ('global', 1700000200000)`);
    await ds.query(`ANALYZE restap_news`);
  });

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  /** The plan PostgreSQL picks by itself (plan_cache_mode auto) for a prepared statement after `runs` executions. */
  const planAfter = async (sql: string, args: string[]): Promise<string> => {
    const runner = app.app.get(DataSource).createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`PREPARE restap_auto_probe AS ${sql}`);
      for (const a of args) await runner.query(`EXECUTE restap_auto_probe(${a})`);
      const rows = (await runner.query(`EXPLAIN (FORMAT JSON) EXECUTE restap_auto_probe(${args[args.length - 1]})`)) as Array<{ 'QUERY PLAN': unknown }>;
      return JSON.stringify(rows[0]['QUERY PLAN']);
    } finally {
      await runner.query(`DEALLOCATE restap_auto_probe`).catch(() => undefined);
      await runner.release();
    }
  };
  const sinces = Array.from({ length: 7 }, (_, k) => 1700000199990 - k);

  it('polls every feed through a generic plan: an index range on ts with the since bound as its parameter', async () => {
    const text = await planAfter(pageSql('all', 11), sinces.map((since) => `'global', ${since}`));
    expect(text).toMatch(/"Node Type":"Limit".*"Index Name":"restap_news_ts_idx"[^{}]*"Index Cond":"\(ts > \$2\)"/);
  });

  it("polls a new session's empty feed through a generic plan on (feed, ts) as a range, never walking (ts) and filtering on feed", async () => {
    const fresh = md5Twice(300_001);
    const text = await planAfter(pageSql('feed', 11), sinces.map((since) => `'global', '${fresh}', ${since}`));
    expect(text).toMatch(/"Index Name":"restap_news_feed_ts_uq"[^{}]*"Index Cond":"\(\(ROW\(feed, ts\) > ROW\(\$2, \$3\)\) AND \(feed <= \$2\)\)"/);
    expect(text).not.toContain('restap_news_ts_idx');
    expect(text).not.toMatch(/"Filter":/);
  });

  it('answers polls of the big feed and of an empty one alike at any limit, with or without a statement of its own', async () => {
    // More distinct limits than get statements of their own (8): the others use LIMIT as a parameter.
    for (let limit = 1; limit <= 12; limit++) {
      const page = (await (await fetch(`${app.url}/news?since=1700000199995&limit=${limit}`)).json()) as { items: Array<{ timestamp: number }>; has_more: boolean; timestamp: number };
      expect(page.items.map((i) => i.timestamp)).toEqual(Array.from({ length: Math.min(limit, 5) }, (_, k) => 1700000199996 + k));
      expect(page.has_more).toBe(limit < 5);
      expect(page.timestamp).toBe(limit < 5 ? 1700000199995 + limit : 1700000200000);
      const mine = await fetch(`${app.url}/news?limit=${limit}`, { headers: { 'Restap-Session-Id': newSessionId() } });
      expect(await mine.json()).toEqual({ items: [], timestamp: 1700000200000, has_more: false });
    }
  });
});

function md5Twice(n: number): string {
  const hex = createHash('md5').update(String(n)).digest('hex');
  return hex + hex;
}
