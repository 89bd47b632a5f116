import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The sample's own table, beside the RESTAP ones: notes, searchable by title and body. */
export class SampleNotes1765900000000 implements MigrationInterface {
  name = 'SampleNotes1765900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE IF NOT EXISTS sample_notes (
      id serial PRIMARY KEY,
      title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
      body text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS sample_notes`);
  }
}
