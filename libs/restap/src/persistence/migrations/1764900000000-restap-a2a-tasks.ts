import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The A2A door's task store. Plain SQL that PostgreSQL 13+ and PGlite both run. */
export class RestapA2aTasks1764900000000 implements MigrationInterface {
  name = 'RestapA2aTasks1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE restap_a2a_tasks (
      id text PRIMARY KEY,
      owner_hash bytea NOT NULL,
      context_hash bytea NOT NULL,
      context_box bytea,
      state text NOT NULL,
      status_at timestamptz NOT NULL,
      task json NOT NULL,
      runner text,
      cancel_requested boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX restap_a2a_tasks_owner_idx ON restap_a2a_tasks (owner_hash, status_at, id)`);
    await q.query(`CREATE INDEX restap_a2a_tasks_context_idx ON restap_a2a_tasks (context_hash, status_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE restap_a2a_tasks`);
  }
}
