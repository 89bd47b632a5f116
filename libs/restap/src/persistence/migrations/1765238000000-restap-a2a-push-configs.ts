import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The A2A door's push-notification configs (issue 38). Plain SQL that PostgreSQL 13+ and PGlite both run. */
export class RestapA2aPushConfigs1765238000000 implements MigrationInterface {
  name = 'RestapA2aPushConfigs1765238000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE restap_a2a_push_configs (
      task_id text NOT NULL,
      owner_hash bytea NOT NULL,
      id text NOT NULL,
      wire_version text NOT NULL,
      config json NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (task_id, owner_hash, id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE restap_a2a_push_configs`);
  }
}
