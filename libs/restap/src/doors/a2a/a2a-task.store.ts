import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Role, Task, TaskState, TaskStatus, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { RestapSql } from '../../persistence/restap-sql';
import { hashSessionId } from '../../sessions/session-id';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { storableId, storableTime } from './a2a-request.check';
import { A2aCaller } from './a2a-caller';
import { requestStateOf, type LiveTask, type TurnRow } from './a2a-request.state';
import { GroupCommit } from '../../persistence/group-commit';
import type { TurnSideRow } from '../../persistence/session.store';
import { compactText, shareTask, withContextId } from './a2a-task.copies';
import { FAIL_ORPHAN_TASKS, LIST_BY_CONTEXT, LIST_BY_OWNER, LOAD, MAX_SAVE_BATCH, SAVE, SAVE_MANY, TASK_SIDE, type TaskRow, type TaskWrite } from './a2a-task.sql';
import { RestapReplicas } from '../../core/lifecycle/restap-replicas.service';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { dataPart, textPart } from './a2a-events';
import { A2aTaskWakeups } from './a2a-task.wakeups';

/** What a task whose instance died says, in its failed status (see {@link A2aTaskStore.failOrphans}). */
export const INTERRUPTED_TASK_MESSAGE =
  'The task was interrupted: the agent instance running it stopped (it crashed or was killed) before the task ended. Send the message again.';

const TERMINAL = new Set<TaskState>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);
/** States a blocking send answers with before the task ends (the SDK stops there): written before save resolves. */
const INTERRUPTED = new Set<TaskState>([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

/** While a task streams, the longest its stored copy lags behind, ms. */
const FLUSH_MS = 100;

/** What a load knows beyond the task: who runs it and when it last changed. */
export interface StoredTaskInfo {
  runner: string | null;
  updatedAt: Date;
}

/**
 * The SDK's `TaskStore` on the module's PostgreSQL (restap_a2a_tasks): tasks outlive a restart and
 * every replica answers for them. Scoped by owner — the SHA-256 of the caller's identity — or by
 * context: a caller naming the task's context id (its session id, a secret) may read it too. A
 * caller without credentials owns nothing it could list: it reaches a task by the task's id (drawn
 * at random by the SDK, learnt only from the answer to the message that made it, or from a listing
 * of its context) or lists the tasks of a context it names — never the tasks of other callers.
 *
 * Context ids never reach storage in clear: the document is stored with them blanked, beside
 * their SHA-256 and a seal only the owner's credentials open. On load they are put back from what
 * the request knows (the executor's turn, the request's own contextId) or from the seal; a caller
 * without credentials who names neither gets the task with an empty contextId.
 */
@Injectable()
export class A2aTaskStore implements TaskStore, OnModuleInit {
  /** This app instance (RestapReplicas.id), written as `runner` while it runs a task (see ReplicaAwareRequestHandler). */
  readonly instanceId: string;

  /** Tasks running on this instance, as last saved (see {@link save}). */
  private readonly live = new Map<string, LiveTask>();

  /**
   * Task writes of concurrent requests share statements (GroupCommit): while one is in flight, the
   * next ones wait and then go together, each acknowledged once the statement holding it committed.
   */
  private readonly writes = new GroupCommit<TaskWrite, void>((_, batch) => this.writeBatch(batch), MAX_SAVE_BATCH);

  constructor(
    private readonly sql: RestapSql,
    private readonly replicas: RestapReplicas,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
    /** Each write wakes the task's followers on the other instances (issue 38, item 5). */
    private readonly wakeups: A2aTaskWakeups,
  ) {
    this.instanceId = replicas.id;
  }

  /** The tasks of an instance that died are failed by the others' sweeps (see RestapReplicas). */
  onModuleInit(): void {
    if (this.options.a2a.enabled) this.replicas.registerSweeper('a2a.tasks', (self, orphanAfterMs) => this.failOrphans(self, orphanAfterMs));
  }

  /**
   * Fails the running tasks of dead instances, with {@link INTERRUPTED_TASK_MESSAGE} as their status
   * message (and `{"error":"interrupted"}` as data), and returns how many.
   */
  async failOrphans(self: string, orphanAfterMs: number): Promise<number> {
    const at = new Date();
    const status = TaskStatus.toJSON({
      state: TaskState.TASK_STATE_FAILED,
      timestamp: at.toISOString(),
      message: {
        messageId: '',
        contextId: '',
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [textPart(INTERRUPTED_TASK_MESSAGE), dataPart({ error: 'interrupted', message: INTERRUPTED_TASK_MESSAGE })],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
    });
    const rows = await this.sql.query<{ id: string }>(FAIL_ORPHAN_TASKS, [self, orphanAfterMs, JSON.stringify(status), at]);
    for (const { id } of rows) this.wakeups.written(id);
    return rows.length;
  }

  /**
   * Writes the task. Its first save (the row other instances find it by), its final state and an
   * interrupted state (input or auth required) are written before `save` resolves. In between,
   * while it runs here — `working`, then a reply streamed delta by delta, one save per delta — saves
   * are kept in memory and written at most every {@link FLUSH_MS} (loads here read the memory copy;
   * other instances read a copy at most that old). The new task of a blocking SendMessage reaches
   * its first save when it ends, or once it has run 100 ms (see TaskEvents); when it ends completed
   * within those 100 ms, the statement that stored its turn stored it too (see {@link sideRow}),
   * and its save writes nothing.
   */
  async save(task: Task, context: ServerCallContext): Promise<void> {
    const caller = a2aCallerOf(context);
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    const final = TERMINAL.has(state);
    const now = final || INTERRUPTED.has(state);
    let entry = this.live.get(task.id);
    if (entry && !entry.ownerHash.equals(caller.ownerHash)) entry = undefined; // not this writer's: the statement decides
    if (entry && !now) {
      // A copy that shares the content (see shareTask), its streamed text joined: each save costs the
      // same whatever the size of the messages, and loads hand out the reply as one text part.
      entry.state = state;
      entry.task = compactText(task);
      this.flushLater(entry);
      return;
    }
    // The first save of a task the SDK drew for this request: from now on, loads read memory or storage.
    if (requestStateOf(context).newTaskId === task.id) requestStateOf(context).newTaskId = undefined;
    // A final task its turn's statement stored, unchanged since: nothing to write.
    const stored = final && !entry ? storedWithTurn(task, context) : undefined;
    if (stored) {
      requestStateOf(context).finalTask = stored;
      return;
    }
    const next: LiveTask = entry ?? { id: task.id, ownerHash: caller.ownerHash, contextHash: hashSessionId(task.contextId), box: caller.seal(task.contextId), state, task, written: Promise.resolve() };
    next.state = state;
    next.task = compactText(task);
    if (final) this.live.delete(task.id);
    else this.live.set(task.id, next);
    await this.flush(next);
    if (final) requestStateOf(context).finalTask = next;
  }

  /**
   * The row of a final task to write in the statement that stores the turn that ended it (see
   * TurnRequest.side), instead of a statement of its own. Once that statement has committed,
   * {@link sideStored} tells the store so, and the SDK's save of the same task writes nothing.
   */
  sideRow(task: Task, context: ServerCallContext): TurnSideRow {
    const caller = a2aCallerOf(context);
    const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
    const entry: LiveTask = { id: task.id, ownerHash: caller.ownerHash, contextHash: hashSessionId(task.contextId), box: caller.seal(task.contextId), state, task: compactText(task), written: Promise.resolve() };
    const values = this.rowOf(entry);
    const row: TurnRow = { entry, document: values[6], committed: false };
    requestStateOf(context).turnRow = row;
    return { table: TASK_SIDE, values };
  }

  /** The row {@link sideRow} gave is committed with its turn. */
  sideStored(context: ServerCallContext): void {
    const row = requestStateOf(context).turnRow;
    if (row) {
      row.committed = true;
      this.wakeups.written(row.entry.id);
    }
  }



  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    return (await this.loadWithInfo(taskId, context))?.task;
  }

  /** The task and who runs it; undefined when missing or not the caller's. */
  async loadWithInfo(taskId: string, context: ServerCallContext): Promise<{ task: Task; info: StoredTaskInfo } | undefined> {
    // The door refuses such ids before the SDK (A2aRequestCheck); this keeps them from SQL on any path.
    if (!storableId(taskId)) throw new RequestMalformedError('A task id cannot hold a NUL character.');
    const caller = a2aCallerOf(context);
    const known = knownContextIds(context, caller);
    const live = this.live.get(taskId) ?? finalTaskOf(context, taskId);
    if (live && (live.ownerHash.equals(caller.ownerHash) || known.some((id) => hashSessionId(id).equals(live.contextHash)))) {
      const contextId = live.task.contextId;
      const visible = known.includes(contextId) || (caller.isAuthenticated && live.ownerHash.equals(caller.ownerHash));
      return { task: withContextId(shareTask(live.task), visible ? contextId : ''), info: { runner: TERMINAL.has(live.state) ? null : this.instanceId, updatedAt: new Date() } };
    }
    if (requestStateOf(context).newTaskId === taskId) return undefined; // drawn for this request, not saved yet
    const [row] = await this.sql.query<TaskRow>(LOAD, [taskId, caller.ownerHash, known[0] ? hashSessionId(known[0]) : null]);
    if (!row) return undefined;
    return {
      task: this.restore(row, caller, known),
      info: { runner: row.runner ?? null, updatedAt: new Date(row.updated_at ?? Date.now()) },
    };
  }

  /** Writes the entry within {@link FLUSH_MS}, unless a write of it comes first. */
  private flushLater(entry: LiveTask): void {
    entry.flushTimer ??= setTimeout(() => void this.flush(entry).catch(() => undefined), FLUSH_MS).unref();
  }

  /** Writes the task's latest state, after any write of it still in flight (writes of one task stay in order). */
  private flush(entry: LiveTask): Promise<void> {
    if (entry.flushTimer) clearTimeout(entry.flushTimer);
    entry.flushTimer = undefined;
    const row = this.rowOf(entry);
    const write = entry.written.catch(() => undefined).then(() => this.writes.submit('tasks', row));
    entry.written = write;
    // Once committed, the task's followers elsewhere read it (a failed write wakes no one).
    write.then(() => this.wakeups.written(entry.id), () => undefined);
    return write;
  }

  /** The row of the entry's task as it stands: its document without the context id, the runner while it runs. */
  private rowOf(entry: LiveTask): TaskWrite {
    const { task, state } = entry;
    return [
      task.id,
      entry.ownerHash,
      entry.contextHash,
      entry.box,
      taskStateToJSON(state),
      new Date(task.status?.timestamp ?? Date.now()),
      documentOf(task),
      TERMINAL.has(state) ? null : this.instanceId,
    ];
  }

  /**
   * One batch of task writes: one statement, or one per round when a task is written twice in the
   * batch (two writers of it; its writes stay in order).
   */
  private async writeBatch(batch: TaskWrite[]): Promise<void[]> {
    let rest = batch;
    while (rest.length) {
      const ids = new Set<string>();
      const round: TaskWrite[] = [];
      const later: TaskWrite[] = [];
      for (const row of rest) {
        if (ids.has(row[0])) later.push(row);
        else {
          ids.add(row[0]);
          round.push(row);
        }
      }
      if (round.length === 1) await this.sql.query(SAVE, round[0]);
      else await this.sql.query(SAVE_MANY, round[0].map((_, k) => round.map((row) => row[k])));
      rest = later;
    }
    return batch.map(() => undefined);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const caller = a2aCallerOf(context);
    const pageSize = params.pageSize ?? 50;
    const contextHash = params.contextId ? hashSessionId(params.contextId) : null;
    const cursor = params.pageToken ? decodeCursor(params.pageToken) : undefined;
    const state = params.status ? taskStateToJSON(params.status) : null;
    const after = params.statusTimestampAfter ? new Date(params.statusTimestampAfter) : null;
    if (after && !storableTime(after)) throw new RequestMalformedError('statusTimestampAfter must be a date between the years 0001 and 9999.');
    // Without credentials there is no owner: a caller sees the tasks of a context it names, no others.
    if (!contextHash && !caller.isAuthenticated) return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 };
    const list = contextHash ? LIST_BY_CONTEXT : LIST_BY_OWNER;
    const scope = contextHash ?? caller.ownerHash;
    const [rows, [{ n }]] = await Promise.all([
      this.sql.query<TaskRow>(list.page, [scope, cursor?.at ?? null, cursor?.id ?? null, state, after, pageSize + 1]),
      this.sql.query<{ n: number }>(list.count, [scope, null, null, state, after]),
    ]);
    const page = rows.slice(0, pageSize);
    const known = params.contextId ? [params.contextId] : knownContextIds(context, caller);
    const tasks = page.map((row) => {
      const task = this.restore(row, caller, known);
      if (!params.includeArtifacts) task.artifacts = [];
      return task;
    });
    const last = page[page.length - 1];
    return {
      tasks,
      nextPageToken: rows.length > pageSize && last ? encodeCursor(new Date(last.status_at as Date | string), last.id as string) : '',
      pageSize,
      totalSize: n,
    };
  }

  private restore(row: TaskRow, caller: A2aCaller, known: string[]): Task {
    const document = typeof row.task === 'string' ? JSON.parse(row.task) : row.task;
    const hash = Buffer.from(row.context_hash);
    const contextId = known.find((id) => hashSessionId(id).equals(hash)) ?? caller.open(row.context_box && Buffer.from(row.context_box)) ?? '';
    return withContextId(Task.fromJSON(document), contextId);
  }
}

/** The request's A2aCaller; a context built elsewhere counts as anonymous. */
export function a2aCallerOf(context: ServerCallContext): A2aCaller {
  return context.user instanceof A2aCaller ? context.user : new A2aCaller({ headers: {} }, undefined);
}

/**
 * The task as its turn's statement stored it, when that statement committed and `task` is the same
 * (see A2aTaskStore.sideRow); undefined otherwise, and for any later save.
 */
function storedWithTurn(task: Task, context: ServerCallContext): LiveTask | undefined {
  const row = requestStateOf(context).turnRow;
  if (!row?.committed || row.entry.id !== task.id) return undefined;
  requestStateOf(context).turnRow = undefined;
  return documentOf(compactText(task)) === row.document ? row.entry : undefined;
}

/** The stored document of a task: its JSON, context id blanked. */
function documentOf(task: Task): string {
  return JSON.stringify(Task.toJSON(withContextId(task, '')));
}

/** The task this request saved in a final state, if it is `taskId` (see A2aRequestState.finalTask). */
function finalTaskOf(context: ServerCallContext, taskId: string): LiveTask | undefined {
  const saved = requestStateOf(context).finalTask;
  return saved?.id === taskId ? saved : undefined;
}

function knownContextIds(context: ServerCallContext, caller: A2aCaller): string[] {
  const running = requestStateOf(context).contextId;
  return [...(running ? [running] : []), ...(caller.contextHint ? [caller.contextHint] : [])];
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.toISOString(), id]), 'utf8').toString('base64url');
}

function decodeCursor(token: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [string, string];
    const date = new Date(at);
    if (typeof id === 'string' && storableId(id) && storableTime(date)) return { at: date, id };
  } catch {
    // answered below
  }
  throw new RequestMalformedError('pageToken is not a token this agent issued.');
}
