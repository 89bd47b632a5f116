import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pending and decided approvals (issue 35). A row binds a decision to one call: capability and its
 * exact arguments. `session_hash` is the SHA-256 of the session the approval belongs to (the raw
 * session id is a secret and never stored), null for a sessionless door (an MCP tools/call).
 * Plain SQL that PostgreSQL 13+ and PGlite both run.
 */
export class RestapApprovals1765100000000 implements MigrationInterface {
  name = 'RestapApprovals1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE restap_approvals (
      id text PRIMARY KEY,
      session_hash bytea,
      door text NOT NULL,
      capability text NOT NULL,
      arguments text NOT NULL,
      tool_name text,
      tool_call_id text,
      question text NOT NULL,
      requested_by text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      decision text CHECK (decision IN ('approved', 'denied')),
      decided_by text,
      decided_at timestamptz,
      result_ok boolean,
      result text)`);
    await q.query(`CREATE INDEX restap_approvals_pending_idx ON restap_approvals (session_hash, created_at) WHERE decision IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE restap_approvals`);
  }
}
