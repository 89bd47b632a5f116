import { statement, type RestapStatement } from './restap-sql';
import type { TurnSideTable } from './session.store';
import { deadRunner } from './replicas.sql';

/**
 * Stores the running turns of a batch as they stand: each turn's user message and an empty placeholder for
 * the reply, both `open` (hidden from history) and tagged with the instance running them. Sessions
 * are upserted as in the turn write (key order, touching last_active_at). `ord` keeps each turn's
 * two rows together and in order in the bigserial ids, so the reply follows its message in history
 * even when turns of one session overlap.
 */
export const OPEN_TURNS = statement(
  `
  WITH t AS (
    SELECT * FROM unnest($1::bytea[], $2::text[], $3::text[], $4::text[], $5::timestamptz[])
      WITH ORDINALITY AS t(key_hash, message_id, role, content, created_at, ord)
  ), session AS (
    INSERT INTO restap_sessions AS s (key_hash)
    SELECT DISTINCT key_hash FROM t ORDER BY key_hash
    ON CONFLICT (key_hash) DO UPDATE SET last_active_at = now()
    RETURNING s.id, s.key_hash
  )
  INSERT INTO restap_turns (session_id, message_id, role, content, status, created_at, runner)
  SELECT session.id, t.message_id, t.role, t.content, 'open', t.created_at, $6::text
  FROM t JOIN session USING (key_hash)
  ORDER BY t.ord
  RETURNING id, message_id`,
  'talk.turns-open',
);

/**
 * Ends opened turns: each row (by id) gets its final status and, where given, its content, time
 * and tool steps (a user message keeps its own: null). Unconditional on the row's status: should
 * another instance have taken this one for dead and marked the turn interrupted (an event loop
 * stalled past the orphan window), the reply that did come is the truth and replaces the mark.
 * Side tables' rows are written by CTEs of the same statement, from parameter 6 on, as in the turn
 * write (see TurnSideTable).
 */
export function closeTurnsStatement(sides: readonly TurnSideTable[]): RestapStatement {
  let next = 6;
  const ctes = sides.map((side, k) => {
    const params = side.columns.map(([, type]) => `$${next++}::${type}`).join(', ');
    const names = side.columns.map(([name]) => name).join(', ');
    return `, side_${k} AS (${side.write(`unnest(${params}) AS w(${names})`)})`;
  });
  return statement(
    `
  WITH w AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[], $5::text[]) AS w(id, status, content, created_at, tool_steps)
  )${ctes.join('')}
  UPDATE restap_turns t SET
    status = w.status,
    content = COALESCE(w.content, t.content),
    created_at = COALESCE(w.created_at, t.created_at),
    tool_steps = COALESCE(w.tool_steps::jsonb, t.tool_steps),
    runner = NULL
  FROM w WHERE t.id = w.id`,
    ['talk.turns-close', ...sides.map((side) => side.name)].join('+'),
  );
}

export const CLOSE_TURNS = closeTurnsStatement([]);

/**
 * Marks the open turns of dead instances: the user's message becomes a plain stored message, the
 * reply placeholder `interrupted`. Safe when several instances sweep at once: each row is updated
 * by whichever statement locks it first; the others see it no longer `open` and skip it. Reads
 * only the partial index of open turns.
 */
export const INTERRUPT_ORPHAN_TURNS = statement(
  `
  UPDATE restap_turns t SET status = CASE t.role WHEN 'user' THEN 'complete' ELSE 'interrupted' END, runner = NULL
  WHERE t.status = 'open' AND ${deadRunner('t.runner', '$1', '$2')}
  RETURNING t.role`,
  'talk.turns-interrupt-orphans',
);
