import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OAuth subject an MCP session belongs to (issue 34: OAuth beside `mcp.sessions`): a hash of
 * the issuer, subject and client id of the token that opened it. Null for sessions opened without OAuth.
 */
export class RestapMcpSessionOwner1765300000000 implements MigrationInterface {
  name = 'RestapMcpSessionOwner1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE restap_mcp_sessions ADD COLUMN owner_hash bytea`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE restap_mcp_sessions DROP COLUMN owner_hash`);
  }
}
