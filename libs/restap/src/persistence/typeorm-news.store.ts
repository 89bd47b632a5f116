import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NewsAppend, NewsAppendResult, NewsPageQuery, NewsPageRows, NewsStore, StoredNews } from './news.store';

/** The sequence shared by every feed in global scope. */
export const GLOBAL_SEQUENCE = 'global';

/*
 * Lossless ordering. Every append is ONE autocommit statement: the CTE upserts the sequence row,
 * taking its row lock, and hands out
 *     ts = GREATEST(last_ts + 1, now in ms from clock_timestamp(), max ts already stored + 1)
 * which the INSERT then uses. The row lock is held until that statement commits, so a second
 * writer of the same sequence waits for the first to commit before it picks its ts, and its
 * ON CONFLICT DO UPDATE reads the latest committed last_ts (not its snapshot's). Hence within a
 * sequence, ts is strictly increasing in commit order — also for writers in the same millisecond,
 * on many app instances, or when the clock steps back.
 * A reader's snapshot that sees an item therefore sees every item of that sequence with a smaller
 * ts: PostgreSQL makes a transaction visible (ProcArrayEndTransaction) before it releases its
 * locks, so the waiting writer can only commit after its predecessor is visible to all. A client
 * polling `ts > since ORDER BY ts` with since = the largest ts it has seen never misses or repeats
 * an item. The price is one serialization point per sequence (a single-row lock held for the
 * length of one INSERT): global scope orders all items, session scope only each session's.
 *
 * The `max ts + 1` seed only matters when a sequence row is new (first item, or a switch between
 * global and session scope): the feed may already hold items whose ts ran ahead of the clock.
 *
 * Reads filter and order on the same index key: (feed, ts) for one feed, (ts) for all, so a poll
 * is an index range scan of at most limit + 1 rows whatever the table size; the body is returned
 * as the stored JSON text and spliced into the answer, never parsed and re-serialized.
 *
 * Measured on PostgreSQL 15 with 1M rows (2 shared vCPUs): a 100-item poll takes 0.5–0.9 ms p50
 * (the same filter ordered by id instead: 161 ms). 20 concurrent writers reach ~700 inserts/s on the
 * global sequence with synchronous_commit on (the row lock spans the commit's WAL flush), ~1800/s
 * spread over per-session sequences.
 */
const appendSql = (seed: string): string => `
  WITH s AS (
    INSERT INTO restap_news_sequences AS q (sequence, last_ts)
    VALUES ($1, GREATEST(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, (${seed})))
    ON CONFLICT (sequence) DO UPDATE SET last_ts = GREATEST(q.last_ts + 1, EXCLUDED.last_ts)
    RETURNING last_ts
  )
  INSERT INTO restap_news (feed, ts, type, body, idempotency_key, request_hash)
  SELECT $2, s.last_ts, $3, $4::json, $5, $6 FROM s
  ON CONFLICT (feed, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING id, ts`;

/** In global scope the sequence spans every feed; in session scope it is the feed itself. */
export const APPEND_GLOBAL_SQL = appendSql('SELECT COALESCE(max(ts) + 1, 0) FROM restap_news');
export const APPEND_FEED_SQL = appendSql('SELECT COALESCE(max(ts) + 1, 0) FROM restap_news WHERE feed = $2');

const FIND_BY_KEY_SQL = `SELECT id, ts, request_hash FROM restap_news WHERE feed = $1 AND idempotency_key = $2`;

/** First row: the sequence's committed last_ts (id NULL); then the items. One statement, one snapshot. */
const WATERMARK_SQL = `SELECT NULL::bigint AS id, last_ts AS ts, NULL::text AS body FROM restap_news_sequences WHERE sequence = $1`;
/** Page of one feed: range scan of restap_news_feed_ts_uq. */
export const PAGE_FEED_SQL = `${WATERMARK_SQL}
  UNION ALL (SELECT id, ts, body::text AS body FROM restap_news WHERE feed = $2 AND ts > $3 ORDER BY ts LIMIT $4)`;
/** Page of every feed (global scope, no session): range scan of restap_news_ts_idx. */
export const PAGE_ALL_SQL = `${WATERMARK_SQL}
  UNION ALL (SELECT id, ts, body::text AS body FROM restap_news WHERE ts > $2 ORDER BY ts LIMIT $3)`;
/**
 * Newest items of a few feeds: one backward (feed, ts) range scan per feed, merged. Each feed is
 * its own parameter rather than a row of `unnest(...)`: behind a LATERAL the planner cannot see
 * which feed it reads, assumes the huge global one, and walks (ts) backwards filtering on feed —
 * measured at 0.5–1 s per /talk turn for a new session beside a 1M-item global feed.
 */
export function recentSql(feedCount: number): string {
  const branch = (i: number): string =>
    `(SELECT id, ts, body::text AS body FROM restap_news WHERE feed = $${i + 2} ORDER BY ts DESC LIMIT $1)`;
  const branches = Array.from({ length: feedCount }, (_, i) => branch(i)).join(' UNION ALL ');
  return `SELECT id, ts, body FROM (${branches}) n ORDER BY ts DESC LIMIT $1`;
}

type Row = { id: string | null; ts: string; body: string | null };

/** `NewsStore` on the host's TypeORM DataSource (PostgreSQL or embedded PGlite), in plain SQL. */
@Injectable()
export class TypeOrmNewsStore extends NewsStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async append(item: NewsAppend): Promise<NewsAppendResult> {
    const sql = item.sequence === GLOBAL_SEQUENCE ? APPEND_GLOBAL_SQL : APPEND_FEED_SQL;
    const params = [item.sequence, item.feed, item.type, item.body, item.idempotencyKey ?? null, item.requestHash ?? null];
    // A key can only be seen again if its row is deleted between the two statements; retry then.
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = (await this.dataSource.query(sql, params)) as Array<{ id: string; ts: string }>;
      if (inserted.length) return { outcome: 'created', id: String(inserted[0].id), ts: Number(inserted[0].ts) };
      // DO NOTHING fired: the key is taken. Its writer has committed (it held the sequence lock we
      // just waited for), so a new statement sees its row.
      const existing = (await this.dataSource.query(FIND_BY_KEY_SQL, [item.feed, item.idempotencyKey])) as Array<{
        id: string;
        ts: string;
        request_hash: Buffer | null;
      }>;
      if (!existing.length) continue;
      const [row] = existing;
      const same = row.request_hash && item.requestHash && Buffer.from(row.request_hash).equals(item.requestHash);
      return same ? { outcome: 'replayed', id: String(row.id), ts: Number(row.ts) } : { outcome: 'conflict' };
    }
    throw new Error('NewsStore.append: the idempotency key kept disappearing between insert and lookup.');
  }

  async page(query: NewsPageQuery): Promise<NewsPageRows> {
    const rows = (
      query.feed === undefined
        ? await this.dataSource.query(PAGE_ALL_SQL, [query.sequence, query.since, query.limit + 1])
        : await this.dataSource.query(PAGE_FEED_SQL, [query.sequence, query.feed, query.since, query.limit + 1])
    ) as Row[];
    let watermark: number | undefined;
    const items: StoredNews[] = [];
    for (const row of rows) {
      if (row.id === null) watermark = Number(row.ts);
      else items.push({ id: String(row.id), ts: Number(row.ts), body: row.body as string });
    }
    // UNION ALL keeps branch order in practice; sorting ≤ limit + 1 numbers makes it a guarantee.
    items.sort((a, b) => a.ts - b.ts);
    const hasMore = items.length > query.limit;
    return { rows: hasMore ? items.slice(0, query.limit) : items, hasMore, watermark };
  }

  async recent(feeds: string[], limit: number): Promise<StoredNews[]> {
    if (!feeds.length || limit <= 0) return [];
    const rows = (await this.dataSource.query(recentSql(feeds.length), [limit, ...feeds])) as Row[];
    return rows.map((r) => ({ id: String(r.id), ts: Number(r.ts), body: r.body as string })).reverse();
  }
}
