import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { NewsStore, type NewsPageRows } from '../../persistence/news.store';
import { StreamSlots } from '../talk/stream-slots';
import { NewsPoll, type NewsPollAnswer } from './news-poll';
import { NewsWakeups, type NewsCommitHint } from './news-wakeups';
import { observeGauge } from '../telemetry/restap.metrics';
import { METRIC } from '../telemetry/telemetry.names';

/** A read that may wait: `feed` undefined reads every feed (global scope, no session). */
export interface NewsWaitRequest {
  feed?: string;
  sequence: string;
  since: number;
  limit: number;
  /** Longest hold, ms. */
  waitMs: number;
  /** Who holds it, for the per-client cap (an IP address). */
  client: string;
  /** Aborted when the client goes away: the poll is dropped and its slot freed at once. */
  signal: AbortSignal;
  /** Called once if the poll is held: nothing to answer yet, a slot taken. */
  held?: () => void;
}

/** The polls held on one feed of this instance, and the one read that may be running for them. */
class FeedWaiters {
  readonly polls = new Set<NewsPoll>();
  reading = false;
  again = false;

  constructor(
    readonly feed: string | undefined,
    readonly sequence: string,
  ) {}

  get cursor(): number {
    let min = Infinity;
    for (const poll of this.polls) min = Math.min(min, poll.cursor);
    return min;
  }
}

const ALL_FEEDS = '*';

/**
 * GET /news?wait=: holds a poll that found nothing until an item it may see commits, then answers
 * it as a plain poll would. Wake-ups come from {@link NewsWakeups}; each one costs one read per
 * feed on this instance, shared by every poll held on that feed (never a read per poll), and
 * reads of a feed never overlap: hints that arrive meanwhile fold into the next one.
 * Held polls take slots like /talk streams (`news.maxWaiting`, per client `news.maxWaitingPerClient`;
 * 429 beyond); a client that goes away frees its slot at once; shutdown answers them all at once.
 */
@Injectable()
export class NewsWaits implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private readonly feeds = new Map<string, FeedWaiters>();
  private readonly slots: StreamSlots;
  private readonly unsubscribe: Array<() => void> = [];
  private closing = false;

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly store: NewsStore,
    private readonly wakeups: NewsWakeups,
  ) {
    this.slots = new StreamSlots(options.news.maxWaiting, options.news.maxWaitingPerClient, 'held news polls');
    observeGauge(METRIC.heldPolls, 'GET /news?wait= polls held on this instance.', this, (waits) => waits.held);
  }

  /** Polls held now on this instance. */
  get held(): number {
    return this.slots.open;
  }

  onModuleInit(): void {
    this.unsubscribe.push(
      this.wakeups.onCommitted((hint) => this.hinted(hint)),
      this.wakeups.onResync(() => void this.resync()),
    );
  }

  onModuleDestroy(): void {
    this.unsubscribe.forEach((stop) => stop());
  }

  /** Graceful shutdown: every held poll answers now (nothing new, a safe cursor). */
  beforeApplicationShutdown(): void {
    this.closing = true;
    for (const waiters of this.feeds.values()) for (const poll of waiters.polls) poll.expire();
  }

  /**
   * Answers at once when items newer than `since` exist (exactly as a plain poll), else holds
   * until one this caller may see commits, or `waitMs` passes (then nothing new and the cursor).
   * Resolves undefined when the client went away. Throws 429 when no slot is left.
   */
  read(request: NewsWaitRequest): Promise<NewsPollAnswer | undefined> {
    // Not an async function: a held poll keeps this chain's callbacks, not a suspended frame.
    const key = request.feed ?? ALL_FEEDS;
    let waiters = this.feeds.get(key);
    if (!waiters) this.feeds.set(key, (waiters = new FeedWaiters(request.feed, request.sequence)));
    const feed = waiters;
    let answered!: (page: NewsPollAnswer | undefined) => void;
    const answer = new Promise<NewsPollAnswer | undefined>((resolve) => (answered = resolve));
    const poll = new NewsPoll(request.since, request.limit, (page) => {
      feed.polls.delete(poll);
      answered(page);
    });
    // Registered before its first read: a wake-up during that read already counts for it.
    feed.polls.add(poll);
    let release: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    const abandon = (): void => poll.abandon();
    const settle = (): void => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', abandon);
      release?.();
      if (!poll.settled) poll.abandon();
      this.forget(key, feed);
    };
    let first: Promise<NewsPageRows>;
    try {
      first = this.store.page({ feed: request.feed, sequence: request.sequence, since: request.since, limit: request.limit });
    } catch (error) {
      settle();
      return Promise.reject(error as Error);
    }
    return first
      .then((page) => {
        poll.offer({ since: request.since, ...page });
        if (!poll.settled) {
          if (this.closing) poll.expire();
          else {
            release = this.slots.acquire(request.client);
            if (request.signal.aborted) poll.abandon();
            request.signal.addEventListener('abort', abandon, { once: true });
            timer = setTimeout(() => poll.expire(), request.waitMs);
            if (!poll.settled) request.held?.();
          }
        }
        return answer;
      })
      .finally(settle);
  }

  /** A commit: the feed's own waiters, and in global scope the waiters on every feed. */
  private hinted({ feed, ts }: NewsCommitHint): void {
    this.hintedOn(feed, ts);
    if (this.options.news.scope === 'global') this.hintedOn(ALL_FEEDS, ts);
  }

  private hintedOn(key: string, ts: number): void {
    const waiters = this.feeds.get(key);
    if (waiters?.polls.size && ts > waiters.cursor) this.wake(key, waiters);
  }

  /**
   * Hints may have been lost (listener reconnected, slow timer). One statement finds the held
   * feeds that have an item past their polls' cursor, and only those are read (once each). Not
   * the sequence watermark: in global scope one sequence spans every feed, so it moves with any
   * feed's item and would have every held feed read at each tick (1,000 reads at once for 1,000
   * held sessions, which queued the wake-ups behind them). Polls held on every feed (global scope,
   * no session) compare the global watermark, which is exact for them.
   */
  private async resync(): Promise<void> {
    if (!this.feeds.size || this.closing) return;
    const held = [...this.feeds].filter(([, w]) => w.polls.size);
    const perFeed = held.filter(([key]) => key !== ALL_FEEDS).map(([, w]) => ({ feed: w.feed as string, since: w.cursor }));
    let fresh: Set<string> | undefined;
    let marks: Map<string, number> | undefined;
    try {
      fresh = perFeed.length ? await this.store.fresh(perFeed) : new Set();
      const byMark = held.filter(([key]) => key === ALL_FEEDS || fresh === undefined).map(([, w]) => w.sequence);
      if (byMark.length) marks = await this.store.watermarks([...new Set(byMark)]);
    } catch {
      return; // storage down: the next tick tries again; held polls answer on their timeout
    }
    for (const [key, waiters] of held) {
      if (!waiters.polls.size) continue;
      if (key !== ALL_FEEDS && fresh !== undefined) {
        if (fresh.has(key)) this.wake(key, waiters);
        continue;
      }
      const mark = marks?.get(waiters.sequence);
      if (marks === undefined || (mark !== undefined && mark > waiters.cursor)) this.wake(key, waiters);
    }
  }

  private wake(key: string, waiters: FeedWaiters): void {
    if (waiters.reading) {
      waiters.again = true;
      return;
    }
    void this.readFor(key, waiters);
  }

  /** One read from the lowest cursor, offered to every poll of the feed; again while hinted meanwhile. */
  private async readFor(key: string, waiters: FeedWaiters): Promise<void> {
    waiters.reading = true;
    try {
      do {
        waiters.again = false;
        if (!waiters.polls.size || this.closing) break;
        const since = waiters.cursor;
        const limit = Math.max(...[...waiters.polls].map((p) => p.limit));
        const page = await this.store.page({ feed: waiters.feed, sequence: waiters.sequence, since, limit });
        for (const poll of [...waiters.polls]) if (poll.offer({ since, ...page }) === 'reread') waiters.again = true;
      } while (waiters.again);
    } catch (error) {
      // The polls keep waiting: their timeout answers them, the resync timer reads again.
      this.logger.debug(`News wake-up read failed: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      waiters.reading = false;
      this.forget(key, waiters);
    }
  }

  private forget(key: string, waiters: FeedWaiters): void {
    if (!waiters.polls.size && !waiters.reading && this.feeds.get(key) === waiters) this.feeds.delete(key);
  }
}
