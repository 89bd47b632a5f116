import { statement } from '../../persistence/restap-sql';
import type { TurnSideTable } from '../../persistence/session.store';
import { deadRunner } from '../../persistence/replicas.sql';

/** The A2A door's statements on restap_a2a_tasks, and the shapes of their rows and parameters. */

/**
 * The A2A door's rows of the shared task table: capability tasks (`kind = 'capability'`, see
 * CapabilityTaskStore) live there too, and are never an A2A task (GetTask, ListTasks, cancel, sweep).
 */
export const A2A_KIND = `kind = 'a2a'`;

/** A task is read by its owner, or by whoever names its context (the session id is the secret). */
export const LOAD = statement(`
  SELECT task, context_hash, context_box, runner, updated_at FROM restap_a2a_tasks
  WHERE id = $1 AND (owner_hash = $2 OR context_hash = $3) AND ${A2A_KIND}`);

/**
 * What a save of a row does to the row already there: only a writer who may read it updates it
 * (another identity cannot overwrite it), and never a capability task's row.
 */
const ON_CONFLICT = `
  ON CONFLICT (id) DO UPDATE SET
    context_box = COALESCE(t.context_box, EXCLUDED.context_box),
    state = EXCLUDED.state, status_at = EXCLUDED.status_at, task = EXCLUDED.task,
    runner = EXCLUDED.runner, updated_at = now()
  WHERE (t.owner_hash = EXCLUDED.owner_hash OR t.context_hash = EXCLUDED.context_hash) AND t.${A2A_KIND}`;

/** Insert, or update, one task. */
export const SAVE = statement(`
  INSERT INTO restap_a2a_tasks AS t (id, owner_hash, context_hash, context_box, state, status_at, task, runner)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)${ON_CONFLICT}`, 'a2a.task-save');

/** The same for several tasks (distinct ids) in one statement, rows in id order (one lock order for every writer). */
export const SAVE_MANY = statement(`
  INSERT INTO restap_a2a_tasks AS t (id, owner_hash, context_hash, context_box, state, status_at, task, runner)
  SELECT id, owner_hash, context_hash, context_box, state, status_at, task::json, runner
  FROM unnest($1::text[], $2::bytea[], $3::bytea[], $4::bytea[], $5::text[], $6::timestamptz[], $7::text[], $8::text[])
    AS w(id, owner_hash, context_hash, context_box, state, status_at, task, runner)
  ORDER BY id${ON_CONFLICT}`, 'a2a.task-save-batch');

/**
 * Final tasks written in the statement that stores the turn that ended them (see TurnSideTable): the
 * same columns and conflict rule as SAVE_MANY, so the task is durable exactly when its turn is.
 */
export const TASK_SIDE: TurnSideTable = {
  name: 'a2a.task-save',
  columns: [['id', 'text[]'], ['owner_hash', 'bytea[]'], ['context_hash', 'bytea[]'], ['context_box', 'bytea[]'], ['state', 'text[]'], ['status_at', 'timestamptz[]'], ['task', 'text[]'], ['runner', 'text[]']],
  write: (rows) => `
  INSERT INTO restap_a2a_tasks AS t (id, owner_hash, context_hash, context_box, state, status_at, task, runner)
  SELECT id, owner_hash, context_hash, context_box, state, status_at, task::json, runner FROM ${rows}
  ORDER BY id${ON_CONFLICT}`,
};

/** Task writes one statement takes at most. */
export const MAX_SAVE_BATCH = 64;

/** One task write, its values in SAVE's order. */
export type TaskWrite = [id: string, ownerHash: Buffer, contextHash: Buffer, box: Buffer | null, state: string, statusAt: Date, task: string, runner: string | null];

/**
 * One page of a scope, newest status first: `$1` the owner hash (or the context hash, see
 * {@link listStatements}), `$2`/`$3` the cursor, `$4` a state, `$5` a time floor. One statement per
 * scope, so each plans onto its own (scope, status_at, id) index.
 */
function listStatements(column: 'owner_hash' | 'context_hash') {
  const filter = `${column} = $1 AND ${A2A_KIND} AND ($4::text IS NULL OR state = $4) AND ($5::timestamptz IS NULL OR status_at > $5)`;
  return {
    page: statement(`
      SELECT id, task, context_hash, context_box, status_at FROM restap_a2a_tasks
      WHERE ${filter} AND ($2::timestamptz IS NULL OR (status_at, id) < ($2::timestamptz, $3::text))
      ORDER BY status_at DESC, id DESC
      LIMIT $6`),
    count: statement(`SELECT count(*)::int AS n FROM restap_a2a_tasks WHERE ${filter} AND $2::timestamptz IS NULL AND $3::text IS NULL`),
  };
}

export const LIST_BY_OWNER = listStatements('owner_hash');
export const LIST_BY_CONTEXT = listStatements('context_hash');

export interface TaskRow {
  id?: string;
  task: unknown;
  context_hash: Buffer;
  context_box: Buffer | null;
  runner?: string | null;
  updated_at?: Date | string;
  status_at?: Date | string;
}

/**
 * Fails the running tasks of dead instances (see deadRunner): state `failed`, the stored document's
 * status replaced by `$3` (the interrupted status, A2A JSON) with this task's id and a fresh message
 * id, runner cleared. Only tasks that were running (submitted or working): a task waiting for input
 * is not lost with its instance. Safe when several instances sweep at once: the first to lock a row
 * fails it, the others find it no longer running. Reads only the partial index of running tasks.
 * Subscribers on other instances follow a task through storage (followStoredTask) and get the
 * failed status as their final event.
 */
export const FAIL_ORPHAN_TASKS = statement(
  `
  UPDATE restap_a2a_tasks t SET
    state = 'TASK_STATE_FAILED', status_at = $4::timestamptz, runner = NULL, cancel_requested = false, updated_at = now(),
    task = jsonb_set(t.task::jsonb, '{status}',
      jsonb_set(jsonb_set($3::jsonb, '{message,taskId}', to_jsonb(t.id)), '{message,messageId}', to_jsonb(gen_random_uuid()::text)))::json
  WHERE t.runner IS NOT NULL AND t.${A2A_KIND} AND t.state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING') AND ${deadRunner('t.runner', '$1', '$2')}
  RETURNING t.id`,
  'a2a.tasks-fail-orphans',
);
