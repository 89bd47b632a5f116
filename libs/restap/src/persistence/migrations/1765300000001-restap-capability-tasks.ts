import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Capability tasks (issue 38, item 8) live in the A2A door's task table: `kind` tells an A2A task
 * (`a2a`, every row so far) from a capability call run as a task for another door (`capability`),
 * `expires_at` when a finished capability task may be forgotten. Plain SQL that PostgreSQL 13+ and PGlite both run.
 */
export class RestapCapabilityTasks1765300000001 implements MigrationInterface {
  name = 'RestapCapabilityTasks1765300000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE restap_a2a_tasks ADD COLUMN kind text NOT NULL DEFAULT 'a2a'`);
    await q.query(`ALTER TABLE restap_a2a_tasks ADD COLUMN expires_at timestamptz`);
    await q.query(`CREATE INDEX restap_a2a_tasks_expiry_idx ON restap_a2a_tasks (expires_at) WHERE expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX restap_a2a_tasks_expiry_idx`);
    await q.query(`ALTER TABLE restap_a2a_tasks DROP COLUMN expires_at`);
    await q.query(`ALTER TABLE restap_a2a_tasks DROP COLUMN kind`);
  }
}
