import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the sessions, turns and news tables. Plain SQL that PostgreSQL 13+ and PGlite both run. */
export class RestapInit1764700000000 implements MigrationInterface {
  name = 'RestapInit1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE restap_sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      key_hash bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_active_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE UNIQUE INDEX restap_sessions_key_hash_uq ON restap_sessions (key_hash)`);
    await q.query(`CREATE TABLE restap_turns (
      id bigserial PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES restap_sessions (id) ON DELETE CASCADE,
      message_id text NOT NULL,
      role text NOT NULL CHECK (role IN ('user', 'assistant')),
      content text NOT NULL,
      status text NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'aborted', 'error')),
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX restap_turns_session_idx ON restap_turns (session_id, id)`);
    await q.query(`CREATE TABLE restap_news_sequences (
      sequence text PRIMARY KEY,
      last_ts bigint NOT NULL)`);
    await q.query(`CREATE TABLE restap_news (
      id bigserial PRIMARY KEY,
      feed text NOT NULL,
      ts bigint NOT NULL,
      type text NOT NULL,
      body json NOT NULL,
      idempotency_key text,
      request_hash bytea,
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE UNIQUE INDEX restap_news_feed_ts_uq ON restap_news (feed, ts)`);
    await q.query(`CREATE INDEX restap_news_ts_idx ON restap_news (ts)`);
    await q.query(`CREATE UNIQUE INDEX restap_news_idem_uq ON restap_news (feed, idempotency_key) WHERE idempotency_key IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE restap_news`);
    await q.query(`DROP TABLE restap_news_sequences`);
    await q.query(`DROP TABLE restap_turns`);
    await q.query(`DROP TABLE restap_sessions`);
  }
}
