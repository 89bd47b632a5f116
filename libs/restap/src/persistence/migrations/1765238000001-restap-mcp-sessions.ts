import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The MCP door's sessions for 2025-era clients (issue 38). Plain SQL that PostgreSQL 13+ and PGlite both run. */
export class RestapMcpSessions1765238000001 implements MigrationInterface {
  name = 'RestapMcpSessions1765238000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE restap_mcp_sessions (
      id_hash bytea PRIMARY KEY,
      init json NOT NULL,
      subscriptions text[] NOT NULL DEFAULT '{}',
      log_level text,
      created_at timestamptz NOT NULL DEFAULT now(),
      seen_at timestamptz NOT NULL DEFAULT now())`);
    await q.query(`CREATE INDEX restap_mcp_sessions_seen_idx ON restap_mcp_sessions (seen_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE restap_mcp_sessions`);
  }
}
