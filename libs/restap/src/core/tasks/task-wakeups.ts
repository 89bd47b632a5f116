import type { OnApplicationShutdown } from '@nestjs/common';
import type { NewsWakeups } from '../news/news-wakeups';
import { KeyedWakeups } from '../news/keyed-wakeups';

const CANCEL = 'c';

/**
 * Cross-replica wake-ups of stored tasks, on the instance's one LISTEN connection (NewsWakeups'
 * topic `channel`): an instance that wrote a task tells the others ({@link written}: a follower, an
 * MCP `tasks/result` or a cancel waiting on another replica reads it at once), an instance that
 * flagged a task for cancellation tells its runner ({@link cancelRequested}). Keys are task ids.
 * The tasks of `@Capability({ task: true })` (CapabilityTaskWakeups) and of the A2A door
 * (A2aTaskWakeups) each have a channel of their own; a subclass says when to listen ({@link listen}).
 *
 * A wake-up is a hint (see KeyedWakeups): a waiter also re-reads at each resync, and every
 * `fallbackMs` while no LISTEN connection carries wake-ups.
 */
export abstract class TaskWakeups implements OnApplicationShutdown {
  private readonly keys: KeyedWakeups;

  /** `writtenKind`: the one-char kind a write is sent as on the channel (what replicas of earlier versions listen for). */
  protected constructor(
    wakeups: NewsWakeups,
    channel: string,
    fallbackMs: number,
    private readonly writtenKind: string,
  ) {
    this.keys = new KeyedWakeups(wakeups, channel, fallbackMs);
  }

  /** Listens on the channel: call it in onModuleInit, before bootstrap opens the LISTEN connection. */
  protected listen(): void {
    this.keys.start();
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }

  /** True while wake-ups from other instances arrive (a LISTEN connection is in place). */
  get listening(): boolean {
    return this.keys.listening;
  }

  /** This instance stored a change of the task (once committed): wakes its waiters on every instance. */
  written(taskId: string): void {
    this.keys.send(this.writtenKind, taskId);
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
   * Resolves at the task's next {@link written} wake-up, at the next resync, or — while no LISTEN
   * connection carries wake-ups — after the fallback interval; at once once `signal` aborts. Arm it
   * before reading the task, then await it: a wake-up between the read and the wait is not missed.
   */
  async changed(taskId: string, signal?: AbortSignal): Promise<void> {
    await this.keys.changed(this.writtenKind, taskId, signal);
  }
}
