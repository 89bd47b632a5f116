'use strict';
// A fresh PostgreSQL database for one bench run, and the raw-pg baselines measured against it.
const { Client, Pool } = require('pg');

async function freshDatabase(serverUrl, name) {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const version = (await admin.query('SHOW server_version')).rows[0].server_version;
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), version };
}

/** Tables shaped like restap_turns / restap_news, for the raw baselines. */
async function createBaselineTables(pool) {
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_turns (id bigserial PRIMARY KEY, session_id uuid NOT NULL,
    message_id text NOT NULL, role text NOT NULL, content text NOT NULL, status text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_news (id bigserial PRIMARY KEY, feed text NOT NULL, ts bigint NOT NULL,
    type text NOT NULL, body json NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
}

/** BEGIN; INSERT (two turn rows); COMMIT — what persisting one talk turn must at least cost. */
function turnTransaction(pool) {
  return async () => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(`INSERT INTO bench_turns (session_id, message_id, role, content, status)
        VALUES (gen_random_uuid(), 'm', 'user', 'hi', 'complete'), (gen_random_uuid(), 'm', 'assistant', 'ok', 'complete')`);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  };
}

/** One autocommit single-row INSERT — what storing one news item must at least cost. */
function newsInsert(pool) {
  let n = 0;
  return () => pool.query(`INSERT INTO bench_news (feed, ts, type, body) VALUES ('global', $1, 'note', $2)`,
    [Date.now() * 1000 + (n++ % 1000), '{"type":"note","message":"hello"}']);
}

/** Bulk-seeds `count` global news items with increasing timestamps; returns the largest ts. */
async function seedNews(pool, count) {
  const { rows } = await pool.query(`SELECT coalesce(max(ts), 1700000000000) AS max FROM restap_news`);
  const base = Number(rows[0].max);
  await pool.query(`INSERT INTO restap_news (feed, ts, type, body)
    SELECT 'global', $1::bigint + g, 'job.completed', json_build_object('type', 'job.completed', 'job_id', 'job_' || g, 'data', json_build_object('n', g))
    FROM generate_series(1, $2::int) AS g`, [base, count]);
  const max = base + count;
  await pool.query(`INSERT INTO restap_news_sequences (sequence, last_ts) VALUES ('global', $1)
    ON CONFLICT (sequence) DO UPDATE SET last_ts = GREATEST(restap_news_sequences.last_ts, EXCLUDED.last_ts)`, [max]);
  await pool.query('ANALYZE restap_news');
  return max;
}

module.exports = { freshDatabase, createBaselineTables, turnTransaction, newsInsert, seedNews, Pool };
