import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adds the tool steps of an assistant turn (the calls the model made and the results it was
 * given). Nullable: turns stored before it, and turns without tools, have none.
 */
export class RestapToolSteps1764800000000 implements MigrationInterface {
  name = 'RestapToolSteps1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE restap_turns ADD COLUMN tool_steps jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE restap_turns DROP COLUMN tool_steps`);
  }
}
