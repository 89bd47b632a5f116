import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { CapturingLogger } from '../fixtures/talk-app';
import { getNews, newSessionId } from '../fixtures/news-http';
import { startReliabilityApp, type ReliabilityApp } from '../reliability/support/reliability-app';
import { itemJson, pageJson } from '../../libs/restap/src/core/news/news-page.writer';
import { feedOf } from '../../libs/restap/src/core/news/news-feed';

// A plain GET /news poll has its items' wire JSON written by PostgreSQL (pageTextSql), held polls
// and the doors by `itemJson` in JavaScript: both must give the same bytes for whatever storage
// holds, rows written around the module included.
jest.setTimeout(120_000);

/** Bodies as another writer might have stored them: padded, spaced, empty, unicode, and rows that are no item. */
const BODIES = [
  '{"type":"plain","message":"hi"}',
  '  {"type" : "spaced", "x" : [1, 2] }\n',
  '{}',
  '{ \n\t }',
  '[1, 2]',
  '"just text"',
  '{"type":"ünïcødé 👩‍👩‍👧 \u2028","n":1e21,"s":"a\\u0000b"}',
  '\t{"type":"last"}',
  '42',
];

interface StoredRow {
  id: string;
  ts: number;
  body: string;
}

describe('GET /news answers each stored row as its item, byte for byte, as itemJson splices it (spec, "The /news Endpoint")', () => {
  let db: TestDatabase;
  let app: ReliabilityApp;
  let ds: DataSource;
  const logger = new CapturingLogger();
  const session = newSessionId();

  beforeAll(async () => {
    db = await createTestDatabase();
    app = await startReliabilityApp(db.target, { logger });
    ds = app.app.get(DataSource);
    for (const [feed, base] of [['global', 1_000], [feedOf(session), 2_000]] as const) {
      for (const [k, body] of BODIES.entries()) await ds.query(`INSERT INTO restap_news (feed, ts, type, body) VALUES ($1, $2, 'x', $3::json)`, [feed, base + k, body]);
    }
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  /** The rows of one feed, or of every feed (what a poll without a session reads). */
  const stored = async (feed?: string): Promise<StoredRow[]> =>
    ((await ds.query(`SELECT id, ts, body::text AS body FROM restap_news WHERE $1::text IS NULL OR feed = $1 ORDER BY ts`, [feed ?? null])) as Array<{ id: string; ts: string; body: string }>).map((r) => ({ id: String(r.id), ts: Number(r.ts), body: r.body }));
  const isObject = (row: StoredRow): boolean => row.body.trim().startsWith('{') && row.body.trim().endsWith('}');

  /** What a poll from `since` with `limit` must answer (no sequence row: the watermark is the last row's ts). */
  const expected = (rows: StoredRow[], since: number, limit: number): string => {
    const after = rows.filter((r) => r.ts > since);
    const page = after.slice(0, limit);
    const hasMore = after.length > limit;
    const last = page.at(-1)?.ts ?? since;
    return pageJson(page.filter(isObject), hasMore ? last : Math.max(since, last), hasMore);
  };

  it.each([
    ['every feed (no session)', 'global', {}],
    ["one session's feed", 'session', { 'Restap-Session-Id': session }],
  ])('%s: every page at limits 1–10 and 1000, from every since, is the stored bodies spliced by itemJson', async (_, which, headers: Record<string, string>) => {
    const rows = await stored(which === 'global' ? undefined : feedOf(session));
    expect(rows).toHaveLength(which === 'global' ? 2 * BODIES.length : BODIES.length);
    // Past eight distinct limits the store reads with the LIMIT as a parameter: both statement forms are covered.
    for (const limit of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000]) {
      for (const since of [0, ...rows.map((r) => r.ts)]) {
        const page = await getNews(app.url, { since, limit }, headers);
        expect([page.status, page.text]).toEqual([200, expected(rows, since, limit)]);
      }
    }
    // The spliced text is itemJson's, so the objects are the stored ones plus timestamp and news_id.
    const all = await getNews(app.url, { since: 0, limit: 1000 }, headers);
    expect(all.text).toContain(itemJson(rows[1]));
    const types = ['plain', 'spaced', undefined, undefined, 'ünïcødé 👩‍👩‍👧 \u2028', 'last'];
    expect(all.json.items.map((i) => i.type)).toEqual(which === 'global' ? [...types, ...types] : types);
  });

  it('a row that is not a JSON object is logged once, however often it is polled past', async () => {
    const rows = await stored();
    for (let i = 0; i < 3; i++) await getNews(app.url, { since: 0, limit: 1000 });
    for (const row of rows.filter((r) => !isObject(r))) {
      expect(logger.lines.filter((l) => l.includes(`news_${row.id} left out of GET /news: it is not a JSON object`))).toHaveLength(1);
    }
  });
});
