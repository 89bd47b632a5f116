import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The frames of /talk streams, kept so a dropped stream can be resumed on any replica (issue 37,
 * `talk.resume`). UNLOGGED: a short-lived replay buffer (minutes) that needs no WAL — writing it
 * costs a fraction of a logged table's write, and a PostgreSQL crash empties it (resumes then
 * answer 404; the turns themselves are in restap_turns). Plain SQL that PostgreSQL 13+ and PGlite run.
 */
export class RestapTalkFrames1765200000000 implements MigrationInterface {
  name = 'RestapTalkFrames1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNLOGGED TABLE restap_talk_frames (
      message_id text NOT NULL,
      first_id integer NOT NULL,
      last_id integer NOT NULL,
      key_hash bytea NOT NULL,
      frames text NOT NULL,
      state text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (message_id, first_id))`);
    await q.query(`CREATE INDEX restap_talk_frames_created_idx ON restap_talk_frames (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE restap_talk_frames`);
  }
}
