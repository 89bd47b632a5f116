import { InjectRestapDataSource } from '../../persistence/restap-data-source';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { NewsCommitHint } from './news-feed';
import { NEWS_CHANNEL, PgNewsChannel, pgConfigOf } from './pg-news.channel';

export type { NewsCommitHint } from './news-feed';

/** How hints reach the other replicas; chosen once at bootstrap. */
export type NewsWakeupsMode = 'listen' | 'in-process';

/**
 * Another door's own wake-ups on the instance's one LISTEN connection (see {@link NewsWakeups.topic}):
 * short keys (no spaces) sent to every replica, batched like news hints (a key sent twice within
 * one NOTIFY goes once).
 */
export interface WakeupTopic {
  /** Tells every instance, this one included, about `key` (at once here, through NOTIFY elsewhere). */
  send(key: string): void;
  /** Calls `listener` with each key sent on any instance; returns the unsubscribe function. */
  on(listener: (key: string) => void): () => void;
}

/**
 * Tells every replica that news items were committed, so held polls (GET /news?wait=) and the
 * other doors' notification buses can read the store at once instead of polling it.
 *
 * On a PostgreSQL server: one dedicated `LISTEN` connection per instance (a `pg.Client` of its own,
 * never a slot of TypeORM's pool) and a `NOTIFY` per batch of commits (at most one per
 * `NOTIFY_SPACING_MS`, and only while another instance listens: see PgNewsChannel), sent on that same connection after the items committed (so the append
 * statements never take the notify queue's global lock inside their own commits). On the embedded PGlite database, an in-process signal
 * (LISTEN through its node-postgres adapter never delivers, and no other process can write there).
 *
 * A hint is not the record, and hints can be lost: a notification sent while the listener
 * reconnects is gone, a process can stop between its commit and its NOTIFY. So `onResync`
 * listeners are called after every (re)connection and on a slow timer (`news.resyncMs`): re-read
 * from your last cursor then. Several items of one feed may share one hint (the newest ts).
 *
 * The same connection carries the other doors' wake-ups ({@link topic}: A2A task updates and cancel
 * requests), so an instance keeps one LISTEN connection whatever wakes it.
 *
 * @example
 * const stop = wakeups.onCommitted(({ feed, ts }) => { if (feed === myFeed && ts > cursor) void readFrom(cursor); });
 */
@Injectable()
export class NewsWakeups implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private readonly committedListeners = new Set<(hint: NewsCommitHint) => void>();
  private readonly resyncListeners = new Set<() => void>();
  /** Other doors' channels (see {@link topic}) and their listeners. */
  private readonly topics = new Map<string, Set<(key: string) => void>>();
  /** Tags this instance's notifications, so it does not wake its own polls twice. */
  readonly instanceId = randomBytes(6).toString('hex');
  private channel?: PgNewsChannel;
  private timer?: NodeJS.Timeout;
  private mode: NewsWakeupsMode = 'in-process';

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    @Optional() @InjectRestapDataSource() private readonly dataSource?: DataSource,
  ) {}

  /**
   * Calls `listener` on every replica for every committed news item (see {@link NewsCommitHint}).
   * Returns the unsubscribe function. A listener must not throw (a throw is logged and ignored).
   */
  onCommitted(listener: (hint: NewsCommitHint) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /** Calls `listener` when hints may have been missed: after a (re)connection and every `news.resyncMs`. */
  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  /** 'listen' (LISTEN/NOTIFY across replicas) or 'in-process' (this instance only). */
  get transport(): NewsWakeupsMode {
    return this.mode;
  }

  /** True while hints from other replicas can arrive (always true in-process). */
  get connected(): boolean {
    return this.mode === 'in-process' || this.channel?.listening === true;
  }

  /** True while LISTEN is in place: other replicas' hints and topic keys arrive. */
  get listening(): boolean {
    return this.channel?.listening === true;
  }

  /**
   * A channel of another door's wake-ups on the same connection (one LISTEN connection per
   * instance, whatever wakes it). Call it before the application bootstraps (a constructor or
   * `onModuleInit`): the connection listens to the channels known then. `onResync` covers topics
   * too: a key can be lost like a news hint.
   *
   * @example
   * const tasks = wakeups.topic('restap_a2a'); tasks.on((key) => wake(key)); tasks.send(`t${taskId}`);
   */
  topic(channel: string): WakeupTopic {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel) || channel === NEWS_CHANNEL) throw new Error(`A wake-up topic needs a channel name of its own (lower-case identifier), got ${channel}.`);
    let listeners = this.topics.get(channel);
    if (!listeners) this.topics.set(channel, (listeners = new Set()));
    const own = listeners;
    return {
      send: (key) => {
        for (const listener of own) this.call(listener, key);
        this.channel?.send({ feed: key, ts: 0 }, channel);
      },
      on: (listener) => {
        own.add(listener);
        return () => own.delete(listener);
      },
    };
  }

  /** Called once an item is committed: wakes this instance at once and the others through NOTIFY. */
  committed(hint: NewsCommitHint): void {
    this.emit(hint);
    this.channel?.send(hint);
  }

  onApplicationBootstrap(): void {
    const { news } = this.options;
    // The connection serves news and the other doors' topics: it opens when any of them is there.
    if (!news.enabled && !this.topics.size) return;
    const config = news.wakeups === 'in-process' ? undefined : pgConfigOf(news.wakeups, this.dataSource);
    if (config) {
      this.mode = 'listen';
      const channels = [...(news.enabled ? [NEWS_CHANNEL] : []), ...this.topics.keys()];
      this.channel = new PgNewsChannel(config, this.instanceId, {
        hints: (hints, channel) => (channel === NEWS_CHANNEL ? hints.forEach((h) => this.emit(h)) : this.deliver(channel, hints)),
        listening: () => this.resync(),
      }, channels, news.resyncMs);
      this.channel.start();
    }
    this.timer = setInterval(() => {
      this.channel?.ping();
      this.resync();
    }, news.resyncMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.channel?.close();
  }

  private deliver(channel: string, hints: NewsCommitHint[]): void {
    const listeners = this.topics.get(channel);
    if (!listeners) return;
    for (const { feed } of hints) for (const listener of listeners) this.call(listener, feed);
  }

  private emit(hint: NewsCommitHint): void {
    for (const listener of this.committedListeners) this.call(listener, hint);
  }

  private resync(): void {
    for (const listener of this.resyncListeners) this.call(listener, undefined);
  }

  private call<T>(listener: (arg: T) => void, arg: T): void {
    try {
      listener(arg);
    } catch (error) {
      this.logger.error(`A news wake-up listener threw: ${(error as Error)?.message ?? String(error)}`);
    }
  }
}
