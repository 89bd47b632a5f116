import { Injectable } from '@nestjs/common';
import { RestapSql, statement } from './restap-sql';
import { deadRunner } from './replicas.sql';

/** Where a capability task stands. */
export type CapabilityTaskStatus = 'working' | 'completed' | 'failed' | 'cancelled';

/**
 * A capability call run as a task (`@Capability({ task: true })`), as stored: door-neutral, so any
 * door shows it in its own protocol's shape. `result` once completed (the status and body the
 * capability answered), `error` once failed or cancelled (our JSON error: `error`, `message`, HTTP status).
 */
export interface CapabilityTaskDocument {
  id: string;
  capability: string;
  status: CapabilityTaskStatus;
  statusMessage?: string;
  result?: { status: number; body: unknown };
  error?: { status: number; error: string; message: string };
  createdAt: string;
  updatedAt: string;
  /** How long it stays readable once finished, ms. */
  ttlMs: number;
}

/** A stored task and whether some instance still runs it. */
export interface StoredCapabilityTask {
  task: CapabilityTaskDocument;
  runner: string | null;
}

const KIND = `'capability'`;

const INSERT = statement(
  `INSERT INTO restap_a2a_tasks (id, owner_hash, context_hash, state, status_at, task, runner, kind)
   VALUES ($1, $2, $3, 'working', $4, $5, $6, ${KIND})`,
  'tasks.create',
);

/** Ends a running task (once: a task already ended — by a cancel from a dead runner, the sweep — stays as it is). */
const FINISH = statement(
  `UPDATE restap_a2a_tasks SET state = $2, status_at = $3, task = $4, runner = NULL, cancel_requested = false,
     expires_at = $3::timestamptz + $5::int * interval '1 millisecond', updated_at = now()
   WHERE id = $1 AND kind = ${KIND} AND state = 'working'
   RETURNING id`,
  'tasks.finish',
);

/** A running task's progress (its statusMessage and time), while it still runs. */
const PROGRESS = statement(
  `UPDATE restap_a2a_tasks SET task = $2, status_at = $3, updated_at = now()
   WHERE id = $1 AND kind = ${KIND} AND state = 'working'`,
  'tasks.progress',
);

const LOAD = statement(
  `SELECT task, runner FROM restap_a2a_tasks
   WHERE id = $1 AND owner_hash = $2 AND kind = ${KIND} AND (expires_at IS NULL OR expires_at > now())`,
  'tasks.load',
);

/** Asks the instance running the task to cancel it; returns the runner. */
const REQUEST_CANCEL = statement(
  `UPDATE restap_a2a_tasks SET cancel_requested = true
   WHERE id = $1 AND owner_hash = $2 AND kind = ${KIND} AND state = 'working'
   RETURNING runner`,
  'tasks.request-cancel',
);

/** Which of the tasks running here another instance asked to cancel. */
const REQUESTED = statement(`SELECT id FROM restap_a2a_tasks WHERE id = ANY($1::text[]) AND kind = ${KIND} AND cancel_requested`, 'tasks.cancel-requests');

/**
 * Fails the running capability tasks of dead instances (see deadRunner): `$3` the time, `$4` the
 * fields of the failed document (status, message, error). Safe when several instances sweep at once.
 */
const FAIL_ORPHANS = statement(
  `UPDATE restap_a2a_tasks t SET state = 'failed', status_at = $3::timestamptz, runner = NULL, cancel_requested = false, updated_at = now(),
     expires_at = $3::timestamptz + COALESCE((t.task->>'ttlMs')::int, 3600000) * interval '1 millisecond',
     task = (t.task::jsonb || $4::jsonb)::json
   WHERE t.kind = ${KIND} AND t.state = 'working' AND t.runner IS NOT NULL AND ${deadRunner('t.runner', '$1', '$2')}
   RETURNING t.id`,
  'tasks.fail-orphans',
);

/**
 * One page of an owner's capability tasks, newest first (`created_at`, then `id`): `$2` the page size
 * plus one (to know whether more follow), `$3` the id of the last task of the previous page (the
 * cursor) or null. A cursor naming no task of the owner's yields nothing (see `cursorKnown`).
 */
const LIST = statement(
  `SELECT t.task FROM restap_a2a_tasks t
   WHERE t.owner_hash = $1 AND t.kind = ${KIND} AND (t.expires_at IS NULL OR t.expires_at > now())
     AND ($3::text IS NULL OR (t.created_at, t.id) < (SELECT c.created_at, c.id FROM restap_a2a_tasks c WHERE c.id = $3 AND c.owner_hash = $1 AND c.kind = ${KIND}))
   ORDER BY t.created_at DESC, t.id DESC
   LIMIT $2`,
  'tasks.list',
);

/** Whether a cursor still names one of the owner's capability tasks. */
const CURSOR_KNOWN = statement(`SELECT 1 FROM restap_a2a_tasks WHERE id = $1 AND owner_hash = $2 AND kind = ${KIND}`, 'tasks.cursor-known');

/** Forgets finished capability tasks past their TTL. */
const PURGE = statement(`DELETE FROM restap_a2a_tasks WHERE kind = ${KIND} AND expires_at < now()`, 'tasks.purge');

/**
 * Capability tasks in PostgreSQL, in the task table the A2A door keeps its tasks in
 * (restap_a2a_tasks, `kind = 'capability'`): any replica reads or cancels a task another one
 * runs. Scoped by owner: the SHA-256 the core derives from the caller's identity (never a credential).
 */
@Injectable()
export class CapabilityTaskStore {
  constructor(private readonly sql: RestapSql) {}

  async create(task: CapabilityTaskDocument, ownerHash: Buffer, contextHash: Buffer, runner: string): Promise<void> {
    await this.sql.query(INSERT, [task.id, ownerHash, contextHash, new Date(task.createdAt), JSON.stringify(task), runner]);
  }

  /** True when this write ended the task (it was still running). */
  async finish(task: CapabilityTaskDocument): Promise<boolean> {
    const rows = await this.sql.query(FINISH, [task.id, task.status, new Date(task.updatedAt), JSON.stringify(task), task.ttlMs]);
    return rows.length > 0;
  }

  /** Stores a running task as it stands now (its progress); a task that has ended is left as it is. */
  async progress(task: CapabilityTaskDocument): Promise<void> {
    await this.sql.query(PROGRESS, [task.id, JSON.stringify(task), new Date(task.updatedAt)]);
  }

  async load(id: string, ownerHash: Buffer): Promise<StoredCapabilityTask | undefined> {
    const [row] = await this.sql.query<{ task: unknown; runner: string | null }>(LOAD, [id, ownerHash]);
    if (!row) return undefined;
    const task = (typeof row.task === 'string' ? JSON.parse(row.task) : row.task) as CapabilityTaskDocument;
    return { task, runner: row.runner ?? null };
  }

  /** Flags a running task for its runner; the runner's id, or undefined when it is not running (or not the caller's). */
  async requestCancel(id: string, ownerHash: Buffer): Promise<string | null | undefined> {
    const [row] = await this.sql.query<{ runner: string | null }>(REQUEST_CANCEL, [id, ownerHash]);
    return row ? row.runner : undefined;
  }

  async cancelRequested(ids: string[]): Promise<string[]> {
    return (await this.sql.query<{ id: string }>(REQUESTED, [ids])).map((row) => row.id);
  }

  /** Fails the running tasks of dead instances; the ids of those it failed. */
  async failOrphans(self: string, orphanAfterMs: number, at: Date, fields: Partial<CapabilityTaskDocument>): Promise<string[]> {
    return (await this.sql.query<{ id: string }>(FAIL_ORPHANS, [self, orphanAfterMs, at, JSON.stringify(fields)])).map((row) => row.id);
  }

  async purge(): Promise<void> {
    await this.sql.query(PURGE, []);
  }

  /** Up to `limit` of the owner's tasks, newest first, after the task `after` (a page's last id); `more` when others follow. */
  async list(ownerHash: Buffer, limit: number, after?: string): Promise<{ tasks: CapabilityTaskDocument[]; more: boolean }> {
    const rows = await this.sql.query<{ task: unknown }>(LIST, [ownerHash, limit + 1, after ?? null]);
    const tasks = rows.slice(0, limit).map((row) => (typeof row.task === 'string' ? JSON.parse(row.task) : row.task) as CapabilityTaskDocument);
    return { tasks, more: rows.length > limit };
  }

  /** True when `id` names one of the owner's tasks (a list cursor that is still valid). */
  async cursorKnown(id: string, ownerHash: Buffer): Promise<boolean> {
    return (await this.sql.query(CURSOR_KNOWN, [id, ownerHash])).length > 0;
  }
}
