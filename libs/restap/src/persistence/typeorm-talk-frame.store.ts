import { Injectable } from '@nestjs/common';
import { GroupCommit } from './group-commit';
import { binaryArray, PG_ELEMENT } from './pg-binary-array';
import { RestapSql, statement } from './restap-sql';
import type { TurnSideRow, TurnSideTable } from './session.store';
import { TalkFrameStore, type StoredTalkFrames, type TalkFramesRow, type TalkFramesState, type TalkFramesSummary } from './talk-frame.store';

const COLUMNS = 'message_id, first_id, last_id, key_hash, frames, state';

/** A run's values in the column order of COLUMNS. */
type RunValues = readonly [messageId: string, firstId: number, lastId: number, keyHash: Buffer, frames: string, state: string];

const runValues = (row: TalkFramesRow): RunValues => [row.messageId, row.firstId, row.lastId, row.keyHash, row.frames, row.state];

/**
 * A batch of runs as the parameters of `unnest($1::text[], $2::int[], $3::int[], $4::bytea[],
 * $5::text[], $6::text[])`, in PostgreSQL's binary array form: a run's frames (JSON text, quotes and
 * backslashes throughout) go as their UTF-8 bytes, neither escaped nor hex-encoded.
 */
function runParams(rows: ReadonlyArray<RunValues>): Buffer[] {
  return [
    binaryArray(PG_ELEMENT.text, rows, 0),
    binaryArray(PG_ELEMENT.int4, rows, 1),
    binaryArray(PG_ELEMENT.int4, rows, 2),
    binaryArray(PG_ELEMENT.bytea, rows, 3),
    binaryArray(PG_ELEMENT.text, rows, 4),
    binaryArray(PG_ELEMENT.text, rows, 5),
  ];
}

/** Every running turn's frames that waited meanwhile, in one INSERT (see GroupCommit). */
export const APPEND_FRAMES = statement(
  `INSERT INTO restap_talk_frames (${COLUMNS})
   SELECT * FROM unnest($1::text[], $2::int[], $3::int[], $4::bytea[], $5::text[], $6::text[])
   ON CONFLICT (message_id, first_id) DO NOTHING`,
  'talk.frames-append',
);

/** The rows after an event id (and the turn's last): a range scan of the primary key (message_id, first_id), the session checked on each. */
const READ_FRAMES = statement(
  `SELECT first_id, last_id, frames, state FROM restap_talk_frames
   WHERE message_id = $1 AND key_hash = $2 AND (last_id > $3 OR state <> 'open') AND first_id > 0
   ORDER BY first_id LIMIT $4`,
  'talk.frames-read',
);

const SUMMARY = statement(
  `SELECT min(created_at) AS started_at, max(last_id) AS last_id, bool_or(state <> 'open') AS ended
   FROM restap_talk_frames WHERE message_id = $1 AND key_hash = $2 AND first_id > 0`,
  'talk.frames-summary',
);

/** The stop row, written only for a kept turn of that session that has not ended. */
const ASK_STOP = statement(
  `WITH turn AS (
     SELECT count(*) AS n, coalesce(bool_or(state <> 'open'), false) AS ended
     FROM restap_talk_frames WHERE message_id = $1 AND key_hash = $2 AND first_id > 0
   ), asked AS (
     INSERT INTO restap_talk_frames (${COLUMNS})
     SELECT $1, 0, 0, $2, '[]', 'stop' FROM turn WHERE n > 0 AND NOT ended
     ON CONFLICT (message_id, first_id) DO NOTHING
   )
   SELECT n, ended FROM turn`,
  'talk.frames-stop',
);

/** The reply row of the turn in that session, marked by the orphan sweep: the session's turns, by the session index. */
const INTERRUPTED = statement(
  `SELECT EXISTS (
     SELECT 1 FROM restap_sessions s JOIN restap_turns t ON t.session_id = s.id
     WHERE s.key_hash = $2 AND t.message_id = $1 AND t.role = 'assistant' AND t.status = 'interrupted') AS interrupted`,
  'talk.frames-interrupted',
);

const STOPS_ASKED = statement(`SELECT message_id FROM restap_talk_frames WHERE first_id = 0 AND message_id = ANY($1::text[])`, 'talk.frames-stops-read');

/** Oldest rows first, a bounded number per statement: a sweep never holds many locks for long. */
const SWEEP = statement(
  `DELETE FROM restap_talk_frames WHERE ctid IN (
     SELECT ctid FROM restap_talk_frames WHERE created_at < now() - $1::bigint * interval '1 millisecond' LIMIT $2)
   RETURNING 1`,
  'talk.frames-sweep',
);

/** A turn's final run written in the statement that stores the turn (TalkFrameStore.sideRow). */
const FRAMES_SIDE: TurnSideTable = {
  name: 'talk.frames',
  columns: [['message_id', 'text[]'], ['first_id', 'int[]'], ['last_id', 'int[]'], ['key_hash', 'bytea[]'], ['frames', 'text[]'], ['state', 'text[]']],
  write: (rows) => `INSERT INTO restap_talk_frames (${COLUMNS}) SELECT ${COLUMNS} FROM ${rows} ON CONFLICT (message_id, first_id) DO NOTHING`,
  params: (rows) => runParams(rows as ReadonlyArray<RunValues>),
};

/** Rows one append statement takes at most. */
const MAX_APPEND_BATCH = 256;

/** {@link TalkFrameStore} on the host's TypeORM DataSource, in prepared statements (see RestapSql). */
@Injectable()
export class TypeOrmTalkFrameStore extends TalkFrameStore {
  private readonly appends = new GroupCommit<TalkFramesRow, void>((_, rows) => this.write(rows), MAX_APPEND_BATCH);

  constructor(private readonly sql: RestapSql) {
    super();
  }

  append(row: TalkFramesRow): Promise<void> {
    return this.appends.submit('frames', row);
  }

  async read(messageId: string, keyHash: Buffer, afterId: number, limit: number): Promise<StoredTalkFrames[]> {
    const rows = await this.sql.query<{ first_id: number; last_id: number; frames: string; state: TalkFramesState }>(READ_FRAMES, [messageId, keyHash, afterId, limit]);
    return rows.map((r) => ({ firstId: Number(r.first_id), lastId: Number(r.last_id), frames: r.frames, state: r.state }));
  }

  async summary(messageId: string, keyHash: Buffer): Promise<TalkFramesSummary | undefined> {
    const [row] = await this.sql.query<{ started_at: Date | string | null; last_id: number | null; ended: boolean | null }>(SUMMARY, [messageId, keyHash]);
    if (!row || row.started_at === null || row.last_id === null) return undefined;
    return { startedAt: new Date(row.started_at), lastId: Number(row.last_id), ended: row.ended === true };
  }

  async askStop(messageId: string, keyHash: Buffer): Promise<'stopping' | 'ended' | 'unknown'> {
    const [row] = await this.sql.query<{ n: number | string; ended: boolean }>(ASK_STOP, [messageId, keyHash]);
    if (!row || Number(row.n) === 0) return 'unknown';
    return row.ended ? 'ended' : 'stopping';
  }

  async interrupted(messageId: string, keyHash: Buffer): Promise<boolean> {
    const [row] = await this.sql.query<{ interrupted: boolean }>(INTERRUPTED, [messageId, keyHash]);
    return row?.interrupted === true;
  }

  async stopsAsked(messageIds: readonly string[]): Promise<string[]> {
    if (!messageIds.length) return [];
    const rows = await this.sql.query<{ message_id: string }>(STOPS_ASKED, [messageIds]);
    return rows.map((r) => r.message_id);
  }

  async sweep(ageMs: number, limit: number): Promise<number> {
    const rows = await this.sql.query<unknown>(SWEEP, [ageMs, limit]);
    return rows.length;
  }

  override sideRow(row: TalkFramesRow): TurnSideRow {
    return { table: FRAMES_SIDE, values: runValues(row) };
  }

  private async write(rows: TalkFramesRow[]): Promise<void[]> {
    await this.sql.query(APPEND_FRAMES, runParams(rows.map(runValues)));
    return rows.map(() => undefined);
  }
}
