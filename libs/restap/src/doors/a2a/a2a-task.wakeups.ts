import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { NewsWakeups, type WakeupTopic } from '../../core/news/news-wakeups';
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
 * A wake-up is a hint, not the record, and can be lost (a NOTIFY sent while a listener reconnects,
 * an instance that stops between its write and its NOTIFY): so every waiter also wakes on
 * NewsWakeups' resync — after each (re)connection and every `news.resyncMs` (5 s by default) — and
 * re-reads then. Without a LISTEN connection (PGlite, `'in-process'`, or while it is down) a waiter
 * falls back to reading every {@link FALLBACK_POLL_MS}.
 */
@Injectable()
export class A2aTaskWakeups implements OnModuleInit, OnApplicationShutdown {
  private topic?: WakeupTopic;
  /** Waiters per task id: each resolves once, at the task's next wake-up (or a resync). */
  private readonly waiters = new Map<string, Set<() => void>>();
  private readonly cancelListeners = new Set<(taskId: string) => void>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly wakeups: NewsWakeups,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
  ) {}

  /** Registered before bootstrap, so the instance's LISTEN connection listens to the A2A channel too. */
  onModuleInit(): void {
    if (!this.options.a2a.enabled) return;
    this.topic = this.wakeups.topic(A2A_CHANNEL);
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
    return this.wakeups.listening;
  }

  /** This instance wrote the task (its stored copy changed): wakes its followers on every instance. */
  updated(taskId: string): void {
    this.topic?.send(`${UPDATED}${encodeURIComponent(taskId)}`);
  }

  /** This instance flagged the task for cancellation (see RemoteCancels): wakes its runner. */
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
   * Resolves at the task's next wake-up, at the next resync, or — while no LISTEN connection carries
   * wake-ups — after {@link FALLBACK_POLL_MS}; at once once `signal` aborts. Arm it before reading
   * the task, then await it: a wake-up between the read and the wait is not missed.
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
      if (!this.listening) timer = setTimeout(done, FALLBACK_POLL_MS);
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
    if (kind === UPDATED) [...(this.waiters.get(taskId) ?? [])].forEach((wake) => wake());
    else if (kind === CANCEL) for (const listener of this.cancelListeners) listener(taskId);
  }

  private wakeAll(): void {
    for (const waiters of [...this.waiters.values()]) [...waiters].forEach((wake) => wake());
  }
}
