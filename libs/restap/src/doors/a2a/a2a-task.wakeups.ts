import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NewsWakeups } from '../../core/news/news-wakeups';
import { KeyedWakeups } from '../../core/news/keyed-wakeups';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { A2aDoorOptions } from './a2a.options';

/** The NOTIFY channel of A2A task wake-ups. */
export const A2A_CHANNEL = 'restap_a2a';

/**
 * How often a waiter re-reads storage while no LISTEN connection carries wake-ups (the embedded
 * database, `news.wakeups: 'in-process'`, or the connection down and reconnecting), ms: the
 * polling the door did before it had wake-ups.
 */
export const FALLBACK_POLL_MS = 250;

const UPDATED = 't';
const CANCEL = 'c';

/**
 * Cross-replica wake-ups of the A2A door (issue 38, item 5), on the instance's one LISTEN
 * connection (NewsWakeups' topic {@link A2A_CHANNEL}): an instance that wrote a task tells the
 * others (`updated`), an instance asked to cancel a task another one runs tells its runner
 * (`cancelRequested`). A subscription that follows a task through storage, a cancel waiting for
 * the runner's confirmation, and the runner's check for cancel requests wait on these instead of
 * reading PostgreSQL every 200–250 ms.
 *
 * A wake-up is a hint (see KeyedWakeups): a waiter also re-reads at each resync, and every
 * {@link FALLBACK_POLL_MS} without a LISTEN connection.
 */
@Injectable()
export class A2aTaskWakeups implements OnModuleInit, OnApplicationShutdown {
  private readonly keys: KeyedWakeups;

  constructor(
    wakeups: NewsWakeups,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
  ) {
    this.keys = new KeyedWakeups(wakeups, A2A_CHANNEL, FALLBACK_POLL_MS);
  }

  /** Registered before bootstrap, so the instance's LISTEN connection listens to the A2A channel too. */
  onModuleInit(): void {
    if (this.options.a2a.enabled) this.keys.start();
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }

  /** True while wake-ups from other instances arrive (a LISTEN connection is in place). */
  get listening(): boolean {
    return this.keys.listening;
  }

  /** This instance wrote the task (its stored copy changed): wakes its followers on every instance. */
  updated(taskId: string): void {
    this.keys.send(UPDATED, taskId);
  }

  /** This instance flagged the task for cancellation (see RemoteCancels): wakes its runner. */
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
   * Resolves at the task's next wake-up, at the next resync, or — while no LISTEN connection carries
   * wake-ups — after {@link FALLBACK_POLL_MS}; at once once `signal` aborts. Arm it before reading
   * the task, then await it: a wake-up between the read and the wait is not missed.
   */
  async changed(taskId: string, signal?: AbortSignal): Promise<void> {
    await this.keys.changed(UPDATED, taskId, signal);
  }
}
