import type { NewsWakeups, WakeupTopic } from './news-wakeups';

/** The characters encodeURIComponent leaves as they are: a key of only these (a message or task id) is sent as it is. */
const URI_PLAIN = /^[A-Za-z0-9_.!~*'()-]*$/;

/**
 * Wake-ups about things named by a key (a task id, a turn's message id) on one channel of the
 * instance's LISTEN connection (NewsWakeups' topic): what the tasks of the MCP and A2A doors and
 * resumed /talk streams wait on instead of reading PostgreSQL every 250 ms. A wake-up is a one-char
 * kind and the key (URI-encoded, so any key fits the topic's no-space rule): waiters of a kind wait
 * for a key's next wake-up ({@link changed}), listeners of a kind hear every key ({@link on}).
 *
 * A wake-up is a hint, not the record, and can be lost (a NOTIFY sent while a listener reconnects,
 * an instance that stops between its write and its NOTIFY): every waiter also wakes on NewsWakeups'
 * resync — after each (re)connection and every `news.resyncMs` (5 s by default) — and re-reads then.
 * Without a LISTEN connection (PGlite, `news.wakeups: 'in-process'`, or while it is down and
 * reconnecting) a waiter falls back to a re-read every `fallbackMs`.
 *
 * @example
 * const tasks = new KeyedWakeups(wakeups, 'restap_tasks', 250);
 * tasks.start();                              // in onModuleInit: before bootstrap opens the LISTEN
 * const next = tasks.changed('e', taskId);    // armed before reading, so nothing is missed
 * if (!(await read(taskId)).ended) await next;
 * tasks.send('e', taskId);                    // after the write committed, on the writer
 */
export class KeyedWakeups {
  private topic?: WakeupTopic;
  /** Waiters per kind + key: each resolves once, at that key's next wake-up of that kind (or a resync). */
  private readonly waiters = new Map<string, Set<(woken: boolean) => void>>();
  private readonly listeners = new Map<string, Set<(key: string) => void>>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly wakeups: NewsWakeups,
    private readonly channel: string,
    private readonly fallbackMs: number,
  ) {}

  /** Listens on the channel: call it before bootstrap (the LISTEN connection takes the channels known then). */
  start(): void {
    if (this.topic) return;
    this.topic = this.wakeups.topic(this.channel);
    this.unsubscribe.push(
      this.topic.on((message) => this.received(message)),
      this.wakeups.onResync(() => this.wakeAll()),
    );
  }

  /** Stops listening; every waiter wakes (and re-reads). */
  stop(): void {
    this.unsubscribe.splice(0).forEach((stop) => stop());
    this.wakeAll();
  }

  /** True while wake-ups from other instances arrive (started, and a LISTEN connection is in place). */
  get listening(): boolean {
    return this.topic !== undefined && this.wakeups.listening;
  }

  /** Tells every instance, this one included, about `key` (send it once the write it announces has committed). Nothing when not started. */
  send(kind: string, key: string): void {
    this.topic?.send(kind + (URI_PLAIN.test(key) ? key : encodeURIComponent(key)));
  }

  /** Calls `listener` with every key of `kind` sent on any instance; returns the unsubscribe function. */
  on(kind: string, listener: (key: string) => void): () => void {
    let set = this.listeners.get(kind);
    if (!set) this.listeners.set(kind, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Calls `listener` when wake-ups may have been missed (after a LISTEN (re)connection, every `news.resyncMs`). */
  onResync(listener: () => void): () => void {
    return this.wakeups.onResync(listener);
  }

  /**
   * Resolves true at the key's next wake-up of `kind`, at a resync, or — while no LISTEN connection
   * carries wake-ups — after `fallbackMs`; false after `timeoutMs` (if given) or once `signal`
   * aborts. Arm it before reading, then await it: a wake-up between the read and the wait is not missed.
   */
  changed(kind: string, key: string, signal?: AbortSignal, timeoutMs?: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const id = kind + key;
      let waiters = this.waiters.get(id);
      if (!waiters) this.waiters.set(id, (waiters = new Set()));
      const own = waiters;
      let fallback: NodeJS.Timeout | undefined;
      let timeout: NodeJS.Timeout | undefined;
      const done = (woken: boolean): void => {
        clearTimeout(fallback);
        clearTimeout(timeout);
        signal?.removeEventListener('abort', aborted);
        own.delete(done);
        if (!own.size && this.waiters.get(id) === own) this.waiters.delete(id);
        resolve(woken);
      };
      const aborted = (): void => done(false);
      own.add(done);
      if (signal?.aborted) return aborted();
      signal?.addEventListener('abort', aborted, { once: true });
      if (timeoutMs !== undefined) timeout = setTimeout(aborted, timeoutMs);
      if (!this.listening) fallback = setTimeout(() => done(true), this.fallbackMs);
    });
  }

  /** How many waiters wait for the key's next wake-up of `kind` (diagnostics, tests). */
  waiting(kind: string, key: string): number {
    return this.waiters.get(kind + key)?.size ?? 0;
  }

  private received(message: string): void {
    const kind = message.charAt(0);
    let key = message.slice(1);
    if (key.includes('%')) {
      try {
        key = decodeURIComponent(key);
      } catch {
        return;
      }
    }
    const waiters = this.waiters.size ? this.waiters.get(kind + key) : undefined;
    if (waiters) [...waiters].forEach((wake) => wake(true));
    const listeners = this.listeners.get(kind);
    if (listeners) for (const listener of listeners) listener(key);
  }

  private wakeAll(): void {
    for (const waiters of [...this.waiters.values()]) [...waiters].forEach((wake) => wake(true));
  }
}
