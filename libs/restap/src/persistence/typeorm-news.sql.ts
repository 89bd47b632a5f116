/** The SQL of TypeOrmNewsStore (see the ordering notes there): appends, pages, recent news, resync probes. */

const appendSql = (seed: string): string => `
  WITH s AS (
    INSERT INTO restap_news_sequences AS q (sequence, last_ts)
    VALUES ($1, GREATEST(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, (${seed})) + $2::bigint - 1)
    ON CONFLICT (sequence) DO UPDATE SET last_ts = GREATEST(q.last_ts + $2::bigint, EXCLUDED.last_ts)
    RETURNING last_ts - $2::bigint AS base
  ), ins AS (
    INSERT INTO restap_news (feed, ts, type, body, idempotency_key, request_hash)
    SELECT i.feed, s.base + i.ord, i.type, i.body::json, i.key, i.hash
    FROM s, unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bytea[]) WITH ORDINALITY AS i(feed, type, body, key, hash, ord)
    ORDER BY i.ord
    ON CONFLICT (feed, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING id, ts
  )
  SELECT ins.id, ins.ts, ins.ts - s.base AS ord FROM ins, s`;

/**
 * Appends a batch of items of one sequence: $1 sequence, $2 the batch size, $3…$7 arrays of feed,
 * type, body, idempotency key and request hash. Rows returned carry `ord`, the 1-based position of
 * the item in the batch; an item without a row was skipped by its idempotency key.
 * In global scope the sequence spans every feed; in session scope it is the feed itself ($1).
 */
export const APPEND_GLOBAL_SQL = appendSql('SELECT COALESCE(max(ts) + 1, 0) FROM restap_news');
export const APPEND_FEED_SQL = appendSql('SELECT COALESCE(max(ts) + 1, 0) FROM restap_news WHERE feed = $1');

export const FIND_BY_KEY_SQL = `SELECT id, ts, request_hash FROM restap_news WHERE feed = $1 AND idempotency_key = $2`;

/** First row: the sequence's committed last_ts (id NULL); then the items. One statement, one snapshot. */
const WATERMARK_SQL = `SELECT NULL::bigint AS id, last_ts AS ts, NULL::text AS body FROM restap_news_sequences WHERE sequence = $1`;
/**
 * A page read: the watermark row, then the items with `ts > since` in ts order. The LIMIT is
 * written in when `limit` is given, else it is the last parameter.
 *
 * Why written in: these run as prepared statements, and with `LIMIT $n` PostgreSQL costs the
 * generic plan as if 10 % of the matching rows were read, so it never takes it and plans every
 * execution anew, probing the ts index's end each time. Measured on PostgreSQL 15: 0.07 ms of
 * planning against 0.015 ms of execution per poll. With the LIMIT written in, the generic plan is
 * taken after five executions and planning stops.
 *
 * One feed: `(feed, ts) > ($2, $3) AND feed <= $2` is `feed = $2 AND ts > $3`, written so that only
 * restap_news_feed_ts_uq can serve it, as a range that starts at ($2, $3): a generic plan does not
 * know which feed it reads, and with `feed = $2` it walked the (ts) index filtering on feed when
 * most rows were one feed's (a new session's empty feed beside 1M global items: 518 ms). With
 * `feed = $2` kept beside the row comparison, the scan started at the feed's first item instead.
 * Every feed (global scope, no session): range scan of restap_news_ts_idx.
 */
export function pageSql(scope: 'feed' | 'all', limit?: number): string {
  const items =
    scope === 'feed'
      ? `SELECT id, ts, body::text AS body FROM restap_news WHERE (feed, ts) > ($2, $3) AND feed <= $2 ORDER BY feed, ts LIMIT ${limit ?? '$4'}`
      : `SELECT id, ts, body::text AS body FROM restap_news WHERE ts > $2 ORDER BY ts LIMIT ${limit ?? '$3'}`;
  return `${WATERMARK_SQL}
  UNION ALL (${items})`;
}
/** JSON's insignificant whitespace, the only whitespace a json column can hold outside strings. */
const JSON_BLANKS = "E' \\t\\n\\r'";

/**
 * The same page as {@link pageSql} (same rows, same snapshot), answered as one row: the watermark,
 * whether more are waiting, the last row's ts, and the items' wire JSON already spliced, as
 * `itemJson` writes it (the stored body, trimmed, with `"timestamp":ts,"news_id":"news_<id>"`
 * appended before its closing brace), comma-separated in ts order. Rows whose body is not a JSON
 * object are left out of `items` and listed in `skipped` as `id:ts` pairs.
 *
 * Why in SQL: a poll then hands the agent one short row instead of limit + 1 rows of three
 * columns, each parsed into strings, objects and numbers and spliced again in JavaScript. At 16
 * pollers on 1M items the agent's young-generation scavenges were the poll's p99.
 *
 * `limit` is the rows fetched (the page's limit + 1), written in as in {@link pageSql}; else the
 * last parameter. `batch`: the since parameter is an array, and the statement answers one such row
 * per element (`poll`, its 1-based position), all in one snapshot: concurrent polls of one feed
 * and limit from different cursors share one statement (see `TypeOrmNewsStore.pageText`).
 * Behind the LATERAL the one-feed read keeps its row comparison, so even a generic plan reads a
 * (feed, ts) range from each cursor.
 */
export function pageTextSql(scope: 'feed' | 'all', limit?: number, batch = false): string {
  const fetch = limit ?? (scope === 'feed' ? '$4' : '$3');
  const sinceParam = scope === 'feed' ? '$3' : '$2';
  const since = batch ? 'q.since' : sinceParam;
  const rows =
    scope === 'feed'
      ? `SELECT id, ts, body FROM restap_news WHERE (feed, ts) > ($2, ${since}) AND feed <= $2 ORDER BY feed, ts LIMIT ${fetch}`
      : `SELECT id, ts, body FROM restap_news WHERE ts > ${since} ORDER BY ts LIMIT ${fetch}`;
  const item = `'{' || inside || CASE inside WHEN '' THEN '' ELSE ',' END || '"timestamp":' || ts || ',"news_id":"news_' || id || '"}'`;
  const page = `SELECT (SELECT last_ts FROM restap_news_sequences WHERE sequence = $1) AS watermark,
    count(*) >= ${fetch} AS more,
    max(ts) FILTER (WHERE k < ${fetch}) AS last,
    string_agg(${item}, ',' ORDER BY k) FILTER (WHERE k < ${fetch} AND inside IS NOT NULL) AS items,
    string_agg(id || ':' || ts, ' ' ORDER BY k) FILTER (WHERE k < ${fetch} AND inside IS NULL) AS skipped
  FROM (SELECT id, ts, k, CASE WHEN left(t, 1) = '{' AND right(t, 1) = '}' THEN btrim(substr(t, 2, length(t) - 2), ${JSON_BLANKS}) END AS inside
    FROM (SELECT id, ts, btrim(body::text, ${JSON_BLANKS}) AS t, row_number() OVER (ORDER BY ts) AS k FROM (${rows}) r) b) p`;
  if (!batch) return page;
  return `SELECT q.n AS poll, p.* FROM unnest(${sinceParam}::bigint[]) WITH ORDINALITY AS q(since, n) CROSS JOIN LATERAL (${page}) p`;
}
/** Page of one feed, LIMIT as $4. */
export const PAGE_FEED_SQL = pageSql('feed');
/** Page of every feed, LIMIT as $3. */
export const PAGE_ALL_SQL = pageSql('all');
/**
 * Newest items of a few feeds: one backward (feed, ts) range scan per feed, merged. Each feed is
 * its own parameter rather than a row of `unnest(...)`: behind a LATERAL the planner cannot see
 * which feed it reads, assumes the huge global one, and walks (ts) backwards filtering on feed —
 * measured at 0.5–1 s per /talk turn for a new session beside a 1M-item global feed.
 * The last parameter caps each body at that many characters: a longer one comes back as its
 * beginning, with its full length (`chars`) and its type, so a turn never carries a huge item.
 */
export function recentSql(feedCount: number): string {
  const branch = (i: number): string =>
    `(SELECT id, ts, type, body::text AS text FROM restap_news WHERE feed = $${i + 2} ORDER BY ts DESC LIMIT $1)`;
  const branches = Array.from({ length: feedCount }, (_, i) => branch(i)).join(' UNION ALL ');
  const max = `$${feedCount + 2}::int`;
  return `SELECT id, ts, type, length(text) AS chars, length(text) > ${max} AS cut, CASE WHEN length(text) <= ${max} THEN text ELSE substr(text, 1, ${max}) END AS body
    FROM (${branches}) n ORDER BY ts DESC LIMIT $1`;
}

/** Committed last_ts of several sequences (held polls' resync): primary-key lookups. */
export const WATERMARKS_SQL = `SELECT sequence, last_ts FROM restap_news_sequences WHERE sequence = ANY($1::text[])`;

/**
 * Held feeds with an item past their poll's cursor (held polls' resync): one index-only probe of
 * restap_news_feed_ts_uq per feed (a nested-loop semi join, also as a generic plan; 1,000 feeds
 * beside a 1M-item global feed: 4 ms).
 */
export const FRESH_SQL = `SELECT f.feed FROM unnest($1::text[], $2::bigint[]) AS f(feed, since)
  WHERE EXISTS (SELECT 1 FROM restap_news n WHERE n.feed = f.feed AND n.ts > f.since)`;
