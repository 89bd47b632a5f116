import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NewsWakeups } from '../news/news-wakeups';
import { KeyedWakeups } from '../news/keyed-wakeups';
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
 * A wake-up is a hint (see KeyedWakeups): a waiter also re-reads at each resync, and every
 * {@link TASK_FALLBACK_POLL_MS} without a LISTEN connection.
 */
@Injectable()
export class CapabilityTaskWakeups implements OnModuleInit, OnApplicationShutdown {
  private readonly keys: KeyedWakeups;

  constructor(
    wakeups: NewsWakeups,
    private readonly registry: RestapRegistry,
    // Not used: injected so this runs its onModuleInit after the explorer filled the registry.
    _explorer: RestapExplorer,
  ) {
    this.keys = new KeyedWakeups(wakeups, CAPABILITY_TASKS_CHANNEL, TASK_FALLBACK_POLL_MS);
  }

  /**
   * Registered before bootstrap (the instance's LISTEN connection listens to the channels known
   * then), and only when some capability may run as a task: an app without one opens no connection for it.
   */
  onModuleInit(): void {
    if (this.registry.getCapabilities().some((capability) => capability.options.task === true)) this.keys.start();
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }

  /** True while wake-ups from other instances arrive (a LISTEN connection is in place). */
  get listening(): boolean {
    return this.keys.listening;
  }

  /** This instance stored the task's end (once committed): wakes its waiters on every instance. */
  ended(taskId: string): void {
    this.keys.send(ENDED, taskId);
  }

  /** This instance flagged the task for cancellation (once committed): wakes its runner. */
  cancelRequested(taskId: string): void {
    this.keys.send(CANCEL, taskId);
  }

  /** Calls `listener` when wake-ups may have been missed (after a LISTEN (re)connection, every `news.resyncMs`). */
  onResync(listener: () => void): () => void {
    return this.keys.onResync(listener);
  }

  /** Calls `listener` with the id of each task some instance was asked to cancel; returns the unsubscribe function. */
  onCancelRequested(listener: (taskId: string) => void): () => void {
    return this.keys.on(CANCEL, listener);
  }

  /**
   * Resolves at the task's next `ended` wake-up, at the next resync, or — while no LISTEN connection
   * carries wake-ups — after {@link TASK_FALLBACK_POLL_MS}; at once once `signal` aborts. Arm it
   * before reading the task, then await it: a wake-up between the read and the wait is not missed.
   */
  async changed(taskId: string, signal?: AbortSignal): Promise<void> {
    await this.keys.changed(ENDED, taskId, signal);
  }
}
