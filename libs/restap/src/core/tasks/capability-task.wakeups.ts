import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NewsWakeups, type WakeupTopic } from '../news/news-wakeups';
import { RestapRegistry } from '../registry/restap.registry';
import { RestapExplorer } from '../registry/restap.explorer';

/** The NOTIFY channel of capability task wake-ups. */
export const CAPABILITY_TASKS_CHANNEL = 'restap_tasks';

/**
 * How often a waiter re-reads storage while no LISTEN connection carries wake-ups (the embedded
 * database, `news.wakeups: 'in-process'`, or the connection down and reconnecting), ms: the polling
 * capability tasks did before they had wake-ups.
 */
export const TASK_FALLBACK_POLL_MS = 250;

const ENDED = 'e';
const CANCEL = 'c';

/**
 * Cross-replica wake-ups of capability tasks (`@Capability({ task: true })`, issue 38 item 5), on the
 * instance's one LISTEN connection (NewsWakeups' topic {@link CAPABILITY_TASKS_CHANNEL}), the way the
 * A2A door's tasks wake: an instance that stored a task's end tells the others (`ended`: an MCP
 * `tasks/result` or a cancel waiting on another replica reads it at once), an instance that flagged a
 * task for cancellation tells its runner (`cancelRequested`). Keys are task ids (random UUIDs).
 *
 * A wake-up is a hint, not the record, and can be lost (a NOTIFY sent while a listener reconnects,
 * an instance that stops between its write and its NOTIFY): every waiter also wakes on NewsWakeups'
 * resync — after each (re)connection and every `news.resyncMs` (5 s by default) — and re-reads then.
 * Without a LISTEN connection a waiter falls back to a re-read every {@link TASK_FALLBACK_POLL_MS}.
 */
@Injectable()
export class CapabilityTaskWakeups implements OnModuleInit, OnApplicationShutdown {
  private topic?: WakeupTopic;
  /** Waiters per task id: each resolves once, at the task's next wake-up (or a resync). */
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly cancelListeners = new Set<(taskId: string) => void>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly wakeups: NewsWakeups,
    private readonly registry: RestapRegistry,
    // Not used: injected so this runs its onModuleInit after the explorer filled the registry.
    _explorer: RestapExplorer,
  ) {}

  /**
   * Registered before bootstrap (the instance's LISTEN connection listens to the channels known
   * then), and only when some capability may run as a task: an app without one opens no connection for it.
   */
  onModuleInit(): void {
    if (!this.registry.getCapabilities().some((capability) => capability.options.task === true)) return;
    this.topic = this.wakeups.topic(CAPABILITY_TASKS_CHANNEL);
    this.unsubscribe.push(
      this.topic.on((key) => this.received(key)),
      this.wakeups.onResync(() => this.wakeAll()),
    );
  }

  onApplicationShutdown(): void {
    this.unsubscribe.splice(0).forEach((stop) => stop());
    this.wakeAll();
  }

  /** True while wake-ups from other instances arrive (a LISTEN connection is in place). */
  get listening(): boolean {
    return this.topic !== undefined && this.wakeups.listening;
  }

  /** This instance stored the task's end (once committed): wakes its waiters on every instance. */
  ended(taskId: string): void {
    this.topic?.send(`${ENDED}${encodeURIComponent(taskId)}`);
  }

  /** This instance flagged the task for cancellation (once committed): wakes its runner. */
  cancelRequested(taskId: string): void {
    this.topic?.send(`${CANCEL}${encodeURIComponent(taskId)}`);
  }

  /** Calls `listener` when wake-ups may have been missed (after a LISTEN (re)connection, every `news.resyncMs`). */
  onResync(listener: () => void): () => void {
    return this.wakeups.onResync(listener);
  }

  /** Calls `listener` with the id of each task some instance was asked to cancel; returns the unsubscribe function. */
  onCancelRequested(listener: (taskId: string) => void): () => void {
    this.cancelListeners.add(listener);
    return () => this.cancelListeners.delete(listener);
  }

  /**
   * Resolves at the task's next `ended` wake-up, at the next resync, or — while no LISTEN connection
   * carries wake-ups — after {@link TASK_FALLBACK_POLL_MS}; at once once `signal` aborts. Arm it
   * before reading the task, then await it: a wake-up between the read and the wait is not missed.
   */
  changed(taskId: string, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let waiters = this.waiters.get(taskId);
      if (!waiters) this.waiters.set(taskId, (waiters = new Set()));
      const own = waiters;
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        own.delete(done);
        if (!own.size && this.waiters.get(taskId) === own) this.waiters.delete(taskId);
        resolve();
      };
      own.add(done);
      if (signal?.aborted) return done();
      signal?.addEventListener('abort', done, { once: true });
      if (!this.listening) timer = setTimeout(done, TASK_FALLBACK_POLL_MS);
    });
  }

  private received(key: string): void {
    const kind = key.charAt(0);
    let taskId: string;
    try {
      taskId = decodeURIComponent(key.slice(1));
    } catch {
      return;
    }
    if (kind === ENDED) [...(this.waiters.get(taskId) ?? [])].forEach((wake) => wake());
    else if (kind === CANCEL) for (const listener of this.cancelListeners) listener(taskId);
  }

  private wakeAll(): void {
    for (const waiters of [...this.waiters.values()]) [...waiters].forEach((wake) => wake());
  }
}
