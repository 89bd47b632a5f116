import { Injectable } from '@nestjs/common';
import { RestapSql, statement } from './restap-sql';
import type { TalkRole, TalkTurn, TalkTurnStatus } from '../interfaces/talk.interface';
import type { NewTalkTurn, SessionStore } from './session.store';

/** Newest `$2` turns of the session whose key hash is `$1`, returned oldest first. */
export const LOAD_HISTORY = statement(`
  SELECT t.message_id, t.role, t.content, t.status, t.created_at
  FROM restap_sessions s
  CROSS JOIN LATERAL (
    SELECT id, message_id, role, content, status, created_at
    FROM restap_turns
    WHERE session_id = s.id
    ORDER BY id DESC
    LIMIT $2
  ) t
  WHERE s.key_hash = $1
  ORDER BY t.id ASC`);

/**
 * Upserts the session by key hash (touching last_active_at) and inserts every turn in the same
 * statement: the CTE's RETURNING gives the session id whether the row was new or not, and
 * `unnest … WITH ORDINALITY` keeps the turns' order in their bigserial ids.
 */
export const APPEND_TURNS = statement(`
  WITH session AS (
    INSERT INTO restap_sessions (key_hash) VALUES ($1)
    ON CONFLICT (key_hash) DO UPDATE SET last_active_at = now()
    RETURNING id
  )
  INSERT INTO restap_turns (session_id, message_id, role, content, status, created_at)
  SELECT session.id, t.message_id, t.role, t.content, t.status, t.created_at
  FROM session,
    unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
      WITH ORDINALITY AS t(message_id, role, content, status, created_at, ord)
  ORDER BY t.ord`);

interface TurnRow {
  message_id: string;
  role: TalkRole;
  content: string;
  status: TalkTurnStatus;
  created_at: Date | string;
}

/**
 * {@link SessionStore} on the host's TypeORM DataSource (restap_sessions / restap_turns): each
 * operation is one prepared statement, one round trip to PostgreSQL (see {@link RestapSql}).
 */
@Injectable()
export class TypeOrmSessionStore implements SessionStore {
  constructor(private readonly sql: RestapSql) {}

  async loadHistory(keyHash: Buffer, limit: number): Promise<TalkTurn[]> {
    if (limit <= 0) return [];
    const rows = await this.sql.query<TurnRow>(LOAD_HISTORY, [keyHash, limit]);
    return rows.map((row) => ({
      role: row.role,
      content: row.content,
      messageId: row.message_id,
      status: row.status,
      createdAt: row.created_at instanceof Date ? row.created_at : new Date(row.created_at),
    }));
  }

  async appendTurns(keyHash: Buffer, turns: readonly NewTalkTurn[]): Promise<void> {
    if (!turns.length) return;
    await this.sql.query(APPEND_TURNS, [
      keyHash,
      turns.map((t) => t.messageId),
      turns.map((t) => t.role),
      // PostgreSQL text cannot hold NUL; a model may still produce one.
      turns.map((t) => t.content.replace(/\u0000/g, '\uFFFD')),
      turns.map((t) => t.status),
      turns.map((t) => t.createdAt.toISOString()),
    ]);
  }
}
