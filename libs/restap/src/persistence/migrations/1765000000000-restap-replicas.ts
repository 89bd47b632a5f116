import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orphaned work after a replica dies (kill -9, OOM, lost host): a heartbeat row per running
 * instance (`restap_replicas`), the instance running an open /talk turn (`restap_turns.runner`,
 * set only while the turn is `open`), and two more turn statuses: `open` (stored when the turn
 * starts, hidden from history until it ends) and `interrupted` (its instance died before it ended).
 * The partial indexes hold open turns and running tasks only: the sweeps that look for a dead
 * instance's work read them, never the whole tables. Plain SQL that PostgreSQL 13+ and PGlite run.
 */
export class RestapReplicas1765000000000 implements MigrationInterface {
  name = 'RestapReplicas1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE restap_replicas (
      id text PRIMARY KEY,
      started_at timestamptz NOT NULL DEFAULT now(),
      last_seen timestamptz NOT NULL DEFAULT now())`);
    await q.query(`ALTER TABLE restap_turns ADD COLUMN runner text`);
    await q.query(`ALTER TABLE restap_turns DROP CONSTRAINT IF EXISTS restap_turns_status_check`);
    // NOT VALID, then VALIDATE: the existing rows are checked without blocking writers meanwhile.
    await q.query(`ALTER TABLE restap_turns ADD CONSTRAINT restap_turns_status_check CHECK (status IN ('complete', 'aborted', 'error', 'interrupted', 'open')) NOT VALID`);
    await q.query(`ALTER TABLE restap_turns VALIDATE CONSTRAINT restap_turns_status_check`);
    await q.query(`CREATE INDEX restap_turns_open_idx ON restap_turns (runner) WHERE status = 'open'`);
    await q.query(`CREATE INDEX restap_a2a_tasks_runner_idx ON restap_a2a_tasks (runner) WHERE runner IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX restap_a2a_tasks_runner_idx`);
    await q.query(`DROP INDEX restap_turns_open_idx`);
    await q.query(`UPDATE restap_turns SET status = 'error' WHERE status IN ('interrupted', 'open')`);
    await q.query(`ALTER TABLE restap_turns DROP CONSTRAINT restap_turns_status_check`);
    await q.query(`ALTER TABLE restap_turns ADD CONSTRAINT restap_turns_status_check CHECK (status IN ('complete', 'aborted', 'error'))`);
    await q.query(`ALTER TABLE restap_turns DROP COLUMN runner`);
    await q.query(`DROP TABLE restap_replicas`);
  }
}
