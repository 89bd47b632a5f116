import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { CapabilityTaskStore, type CapabilityTaskDocument, type CapabilityTaskStatus } from '../../persistence/capability-task.store';
import { RestapRegistry } from '../registry/restap.registry';
import { CapabilityTools } from '../tools/capability-tools';
import { RestapReplicas } from '../lifecycle/restap-replicas.service';
import type { RestapCaller } from '../caller';
import type { InvocationResult } from '../invoker/invocation-result';
import type { CapabilityCallEvents } from '../invoker/capability-events';
import { CapabilityTaskWakeups, TASK_FALLBACK_POLL_MS } from './capability-task.wakeups';

export type { CapabilityTaskDocument, CapabilityTaskStatus };

/** What a task whose instance died says (its `error.message`). */
export const INTERRUPTED_CAPABILITY_TASK =
  'The task was interrupted: the agent instance running it stopped (it crashed or was killed) before the call ended. Call it again.';

/** How long a cancel waits for another instance to stop the task, ms. */
const REMOTE_CANCEL_WAIT_MS = 10_000;

const CANCELED = 'The task was cancelled.';

/** How often a running task's progress is stored at most, ms. */
const PROGRESS_STORE_MS = 1_000;

/** Tasks per page of `list` (MCP `tasks/list`). */
export const TASK_LIST_PAGE = 50;

/** Why a cancelled or failed task stopped. */
type StopReason = 'cancel' | 'shutdown';

/**
 * Long-running capabilities (`@Capability({ task: true })`, issue 38 item 8), for every door: a call
 * starts in the background and answers at once with its task; the task lives in PostgreSQL (see
 * CapabilityTaskStore), so any instance reads it or cancels it. The call goes through
 * CapabilityTools as a plain call does — the invoker's guards, pipes and filters, the scope rule —
 * with `capabilityTasks.timeoutMs`; its result is what the capability answered, its failure our
 * JSON error. A cancel aborts the call's signal (`capabilitySignal(req)` in the handler): here
 * directly, on another instance through the task's row and a wake-up to its runner (see
 * CapabilityTaskWakeups: LISTEN/NOTIFY, a re-read at each resync for a lost one). A task whose instance died is failed by the live instances' orphan sweep (RestapReplicas).
 *
 * Doors shape it: MCP as a task (2025-11-25 tasks), while A2A runs its own tasks through the SDK
 * in the same table.
 */
@Injectable()
export class CapabilityTasks implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  /** Tasks running here, and how to stop them. */
  private readonly running = new Map<string, { controller: AbortController; stopped?: StopReason; done: Promise<void> }>();
  private timer?: NodeJS.Timeout;
  private polling = false;
  /** The wake-up subscriptions held while tasks run here (see watchCancels). */
  private readonly unwatch: Array<() => void> = [];

  constructor(
    private readonly store: CapabilityTaskStore,
    private readonly tools: CapabilityTools,
    private readonly registry: RestapRegistry,
    private readonly replicas: RestapReplicas,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly wakeups: CapabilityTaskWakeups,
  ) {}

  onModuleInit(): void {
    this.replicas.registerSweeper('capability.tasks', (self, orphanAfterMs) => this.sweep(self, orphanAfterMs));
  }

  /** Stops what runs here: each task ends `failed` (interrupted) before the instance goes. */
  async onApplicationShutdown(): Promise<void> {
    this.idle();
    const runs = [...this.running.values()];
    for (const run of runs) {
      run.stopped ??= 'shutdown';
      run.controller.abort(new Error(INTERRUPTED_CAPABILITY_TASK));
    }
    await Promise.all(runs.map((run) => run.done));
  }

  /**
   * True when the capability may run as a task (`task: true`). One that needs a person's approval
   * (`approval` on the decorator) is not: it is held for the approval as a plain call.
   */
  isTask(capabilityId: string): boolean {
    const options = this.registry.getCapability(capabilityId)?.options;
    return options?.task === true && !options.approval;
  }

  /** True when this call runs as a task: the capability may, and the host's `approval.require` asks no approval of it. */
  runsAsTask(capabilityId: string, args: Readonly<Record<string, unknown>>, caller: RestapCaller): boolean {
    return this.isTask(capabilityId) && !this.options.approval.require?.(capabilityId, args, caller);
  }

  /**
   * Starts the call in the background and answers with its task, stored `working` (readable from
   * any instance once this resolves). `ttlMs`: how long the caller asked it be kept once finished,
   * capped by `capabilityTasks.ttlMs` (which it is when not asked).
   */
  async start(capabilityId: string, args: Record<string, unknown>, caller: RestapCaller, ttlMs?: number): Promise<CapabilityTaskDocument> {
    const now = new Date().toISOString();
    const task: CapabilityTaskDocument = {
      id: randomUUID(),
      capability: capabilityId,
      status: 'working',
      statusMessage: `Running ${capabilityId}.`,
      createdAt: now,
      updatedAt: now,
      ttlMs: this.ttlOf(ttlMs),
    };
    // The task table wants a context; a capability task has none: an unguessable one of its own.
    await this.store.create(task, this.ownerHashOf(caller), createHash('sha256').update(randomBytes(32)).digest(), this.replicas.id);
    const controller = new AbortController();
    const run = { controller, stopped: undefined as StopReason | undefined, done: Promise.resolve() };
    this.running.set(task.id, run);
    run.done = this.run(task, args, caller, run);
    this.watchCancels();
    return task;
  }

  /** The caller's task, or undefined (unknown, expired, or another caller's). */
  async get(id: string, caller: RestapCaller): Promise<CapabilityTaskDocument | undefined> {
    return (await this.store.load(id, this.ownerHashOf(caller)))?.task;
  }

  /**
   * The task once it has ended (read again at its `written` wake-up, from whichever instance ran it);
   * undefined as `get`. `signal` ends the wait.
   */
  async settled(id: string, caller: RestapCaller, signal?: AbortSignal): Promise<CapabilityTaskDocument | undefined> {
    const owner = this.ownerHashOf(caller);
    for (;;) {
      // Armed before the read: an end stored between the read and the wait still wakes it.
      const changed = this.wakeups.changed(id, signal);
      const stored = await this.store.load(id, owner);
      if (!stored || stored.task.status !== 'working') return stored?.task;
      await changed;
      if (signal?.aborted) return stored.task;
    }
  }

  /**
   * Cancels the caller's task: the call's signal is aborted and the task ends `cancelled`. A task
   * that already ended is left as it is (and answered as it stands); undefined when unknown.
   */
  async cancel(id: string, caller: RestapCaller): Promise<CapabilityTaskDocument | undefined> {
    const owner = this.ownerHashOf(caller);
    const stored = await this.store.load(id, owner);
    if (!stored || stored.task.status !== 'working') return stored?.task;
    const local = this.running.get(id);
    if (local) {
      local.stopped ??= 'cancel';
      local.controller.abort(new Error(CANCELED));
      await local.done;
      return (await this.store.load(id, owner))?.task;
    }
    const runner = await this.store.requestCancel(id, owner);
    if (runner !== undefined) this.wakeups.cancelRequested(id);
    if (runner && runner !== this.replicas.id && !(await this.replicas.isLive(runner))) {
      // Its instance is gone: no one will stop it, so it is ended here.
      if (await this.store.finish(ended(stored.task, 'cancelled', { status: 499, error: 'cancelled', message: CANCELED }))) this.wakeups.written(id);
      return (await this.store.load(id, owner))?.task;
    }
    // Its runner stops it at the wake-up and stores the end, which wakes this wait.
    const deadline = AbortSignal.timeout(REMOTE_CANCEL_WAIT_MS);
    for (;;) {
      const changed = this.wakeups.changed(id, deadline);
      const now = await this.store.load(id, owner);
      if (!now || now.task.status !== 'working' || deadline.aborted) return now?.task;
      await changed;
    }
  }

  /** The hash a task's owner is stored as: the caller's identity (`approval.identify`), never a credential. */
  ownerHashOf(caller: RestapCaller): Buffer {
    return createHash('sha256').update(`restap-task:identity:${this.options.approval.identify(caller)}`, 'utf8').digest();
  }

  /**
   * A task's progress (capabilityProgress in its handler) becomes its `statusMessage` — "3/10: Read
   * note #4" — stored at most once per PROGRESS_STORE_MS (the latest report wins; a report after
   * the task ended is dropped), so `tasks/get` and A2A's GetTask on any replica show how far it is.
   */
  private progressOf(task: CapabilityTaskDocument): CapabilityCallEvents {
    let latest: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    let storedAt = 0;
    const store = (): void => {
      timer = undefined;
      if (latest === undefined || !this.running.has(task.id)) return;
      storedAt = Date.now();
      const now = { ...task, statusMessage: latest, updatedAt: new Date(storedAt).toISOString() };
      latest = undefined;
      this.store.progress(now).catch((error: unknown) => this.logger.warn(`Capability task ${task.capability}: its progress could not be stored: ${(error as Error)?.message ?? String(error)}`));
    };
    return {
      progress: (progress, total, message) => {
        latest = `${total === undefined ? progress : `${progress}/${total}`}${message ? `: ${message}` : ''}`.slice(0, 500);
        timer ??= setTimeout(store, Math.max(0, storedAt + PROGRESS_STORE_MS - Date.now()));
        timer.unref();
      },
    };
  }

  private async run(task: CapabilityTaskDocument, args: Record<string, unknown>, caller: RestapCaller, run: { controller: AbortController; stopped?: StopReason }): Promise<void> {
    let result: InvocationResult;
    try {
      result = await this.tools.callCapability(task.capability, args, caller, run.controller.signal, this.options.capabilityTasks.timeoutMs, this.progressOf(task));
    } catch (error) {
      this.logger.error(`Capability task ${task.capability} failed: ${(error as Error)?.message ?? String(error)}`);
      result = { ok: false, status: 500, error: 'internal_error', message: 'The capability failed.' };
    }
    const final =
      run.stopped === 'cancel' ? ended(task, 'cancelled', { status: 499, error: 'cancelled', message: CANCELED })
        : run.stopped === 'shutdown' ? ended(task, 'failed', { status: 503, error: 'interrupted', message: INTERRUPTED_CAPABILITY_TASK })
        : result.ok ? { ...ended(task, 'completed'), result: { status: result.status, body: result.body } }
        : ended(task, 'failed', { status: result.status, error: result.error, message: result.message });
    try {
      if (await this.store.finish(final)) this.wakeups.written(task.id);
    } catch (error) {
      this.logger.error(`Capability task ${task.capability}: its end could not be stored: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      this.running.delete(task.id);
    }
  }

  /**
   * While tasks run here: hears of cancels asked on other instances. A cancel's wake-up reads that
   * task's flag at once (one indexed statement); a resync reads every running task's flag (a lost
   * wake-up); without a LISTEN connection, every {@link TASK_FALLBACK_POLL_MS}.
   */
  private watchCancels(): void {
    if (this.timer) return;
    this.unwatch.push(
      this.wakeups.onCancelRequested((id) => {
        if (this.running.has(id)) void this.pollCancels([id]);
      }),
      this.wakeups.onResync(() => void this.pollCancels()),
    );
    this.timer = setInterval(() => {
      if (!this.running.size) this.idle();
      else if (!this.wakeups.listening) void this.pollCancels();
    }, TASK_FALLBACK_POLL_MS);
    this.timer.unref();
  }

  private idle(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unwatch.splice(0).forEach((stop) => stop());
  }

  /** Reads the cancel flags of `only` (default: every task running here) and stops the flagged ones. */
  private async pollCancels(only?: string[]): Promise<void> {
    const ids = only ?? [...this.running.keys()];
    if (!ids.length) return;
    // One sweep of every running task at a time; a wake-up for one task reads it alone, at once.
    const sweep = only === undefined;
    if (sweep && this.polling) return;
    if (sweep) this.polling = true;
    try {
      for (const id of await this.store.cancelRequested(ids)) {
        const run = this.running.get(id);
        if (!run) continue;
        run.stopped ??= 'cancel';
        run.controller.abort(new Error(CANCELED));
      }
    } catch (error) {
      this.logger.warn(`Capability tasks: could not read cancel requests: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      if (sweep) this.polling = false;
    }
  }

  private async sweep(self: string, orphanAfterMs: number): Promise<number> {
    const at = new Date();
    const failed = await this.store.failOrphans(self, orphanAfterMs, at, {
      status: 'failed',
      statusMessage: INTERRUPTED_CAPABILITY_TASK,
      error: { status: 503, error: 'interrupted', message: INTERRUPTED_CAPABILITY_TASK },
      updatedAt: at.toISOString(),
    });
    for (const id of failed) this.wakeups.written(id);
    await this.store.purge();
    return failed.length;
  }

  /**
   * One page of the caller's tasks (unexpired), newest first: `cursor` is the `nextCursor` a previous
   * page gave. Undefined when the cursor names no task of the caller's (unknown, expired, another's).
   */
  async list(caller: RestapCaller, cursor?: string): Promise<{ tasks: CapabilityTaskDocument[]; nextCursor?: string } | undefined> {
    const owner = this.ownerHashOf(caller);
    if (cursor !== undefined && !(await this.store.cursorKnown(cursor, owner))) return undefined;
    const { tasks, more } = await this.store.list(owner, TASK_LIST_PAGE, cursor);
    return { tasks, ...(more && tasks.length ? { nextCursor: tasks[tasks.length - 1].id } : {}) };
  }

  /** The TTL a task is kept with: the caller's wish (a whole number of ms) when it is below the option, else the option. */
  private ttlOf(asked: number | undefined): number {
    const cap = this.options.capabilityTasks.ttlMs;
    return asked !== undefined && Number.isSafeInteger(asked) && asked > 0 && asked < cap ? asked : cap;
  }
}

function ended(task: CapabilityTaskDocument, status: CapabilityTaskStatus, error?: CapabilityTaskDocument['error']): CapabilityTaskDocument {
  const message = status === 'completed' ? `${task.capability} answered.` : error!.message;
  return { ...task, status, statusMessage: message, ...(error ? { error } : {}), updatedAt: new Date().toISOString() };
}
