import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { IdempotencyKeyReusedException, MissingSessionIdException } from '../../exceptions';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { NewsAck, NewsItem } from '../../interfaces/news.interface';
import { NewsStore, type NewsPageQuery, type StoredNews } from '../../persistence/news.store';
import { parseSessionId } from '../../sessions/session-id';
import type { TalkNewsSource } from '../talk/talk-news.source';
import { feedOf, GLOBAL_FEED, sequenceOf } from './news-feed';
import { newsIdOf, pageJson, pageText, toNewsItem } from './news-page.writer';
import { NEWS_ITEM_CACHE_CHARS, NewsItemCache } from './news-item.cache';
import { cutNewsItem, sameItems } from '../talk/talk-context.budget';
import type { NewsDraft, NewsPublishOptions } from './news-publish.options';
import { parseNewsItem, requestHash } from './news-request.parser';
import { NewsDispatcher } from './news.dispatcher';
import { NewsWaits } from './news-waits';
import { NewsWakeups } from './news-wakeups';
import { spanEvent } from '../telemetry/restap.telemetry';
import { countNewsAppended } from '../telemetry/restap.metrics';
import { ATTR } from '../telemetry/telemetry.names';

/** A validated POST /news request. */
export interface NewsReceiveRequest {
  body: unknown;
  sessionId: string | undefined;
  idempotencyKey: string | undefined;
}

/**
 * A page of the feed as objects (what `readItems` gives the doors that do not answer with GET
 * /news's JSON text): items oldest first, the cursor to poll from next, and whether more wait.
 * The wire's page is `NewsPage` (snake_case `has_more`).
 */
export interface NewsItemsPage {
  items: NewsItem[];
  timestamp: number;
  hasMore: boolean;
}

/** A validated GET /news request. */
export interface NewsReadRequest {
  sessionId: string | undefined;
  since: number;
  limit: number;
}

/** A GET /news request that may be held (`wait`). */
export interface NewsWaitingReadRequest extends NewsReadRequest {
  /** Longest hold, ms (GET /news `wait` is in seconds, 1–30). */
  waitMs: number;
  /** Who holds the poll, for the per-client cap (an IP address). */
  client: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** Called once if the poll is held (nothing to answer yet, a slot taken): it will wait. */
  held?: () => void;
}

/**
 * The /news feed: stores what clients post and what the agent publishes, serves pages to pollers
 * and the news a /talk turn should see. Nothing here ever produces a reply.
 *
 * @example
 * await this.news.publish({ type: 'status', message: 'Index rebuilt' });
 */
@Injectable()
export class NewsService implements TalkNewsSource {
  private readonly logger = new Logger('Restap');
  private readonly talkItems: NewsItemCache;
  /** Rows already logged as left out (of turns, of pages), so each is logged once, not every time. */
  private readonly skipped = new Set<string>();
  /**
   * The last rows a turn's items were made of, when every one was frozen and gave the cache's item:
   * a turn whose read hands out the same row objects again (the store does while nothing is posted)
   * takes the same items, without a cache lookup each.
   */
  private lastTalkRead?: { rows: readonly StoredNews[]; items: readonly NewsItem[] };

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    private readonly store: NewsStore,
    private readonly dispatcher: NewsDispatcher,
    @Optional() private readonly wakeups?: NewsWakeups,
    @Optional() private readonly waits?: NewsWaits,
  ) {
    this.talkItems = new NewsItemCache(NEWS_ITEM_CACHE_CHARS, options.limits.maxJsonDepth);
  }

  /**
   * POST /news: validates and commits the item, then (only when a new row was stored) hands it to
   * the `@News()` handlers without waiting for them. A replayed idempotency key returns the
   * original acknowledgement; the same key with another body is 422 idempotency_key_reused.
   * Handlers see each item at most once: a replay does not run them again, and an item whose
   * process stops between commit and dispatch is stored but not handed to them.
   */
  async receive(request: NewsReceiveRequest): Promise<NewsAck> {
    this.assertSession(request.sessionId);
    const { type, fields } = parseNewsItem(request.body, this.options.news.maxTypeLength);
    const body = JSON.stringify(fields);
    const feed = feedOf(request.sessionId);
    const result = await this.store.append({
      feed,
      sequence: sequenceOf(this.options.news.scope, feed),
      type,
      body,
      idempotencyKey: request.idempotencyKey,
      requestHash: request.idempotencyKey === undefined ? undefined : requestHash(fields),
    });
    if (result.outcome === 'conflict') throw new IdempotencyKeyReusedException();
    if (result.outcome === 'created') {
      this.wakeups?.committed({ feed, ts: result.ts });
      countNewsAppended('client');
    }
    // Without handlers, skip building (and parsing) the item on every POST.
    if (result.outcome === 'created' && this.dispatcher.hasHandlers) {
      const item = toNewsItem({ id: result.id, ts: result.ts, body });
      void this.dispatcher.dispatch(item, request.sessionId === undefined ? {} : { sessionId: request.sessionId });
    }
    return { status: 'received', news_id: newsIdOf(result.id), message: 'Message stored successfully' };
  }

  /**
   * GET /news as JSON text: items with `timestamp > since`, oldest first. `timestamp` of the
   * answer is safe to poll from: the last item's when more are waiting, else the feed's committed
   * high-water mark (every item at or below it has been seen), never less than `since`.
   */
  async read(request: NewsReadRequest): Promise<string> {
    const query = this.pageQuery(request);
    const text = await this.store.pageText(query);
    if (!text) {
      const page = await this.pageOf(query);
      return pageJson(page.rows, page.timestamp, page.hasMore);
    }
    // As in pageOf: a row that is not a JSON object is left out, and `timestamp` still moves past it.
    for (const row of text.skipped) this.skip(row, 'GET /news', 'it is not a JSON object');
    return pageText(text.items, nextCursor(query.since, text.last, text.hasMore, text.watermark), text.hasMore);
  }

  /**
   * The same page as `read`, as objects, for doors that do not answer with RESTAP's JSON text
   * (MCP resources, the playground's server side).
   */
  async readItems(request: NewsReadRequest): Promise<NewsItemsPage> {
    const page = await this.pageOf(this.pageQuery(request));
    return { items: page.rows.map(toNewsItem), timestamp: page.timestamp, hasMore: page.hasMore };
  }

  private pageQuery(request: NewsReadRequest): NewsPageQuery {
    this.assertSession(request.sessionId);
    const feed = request.sessionId === undefined ? undefined : feedOf(request.sessionId);
    return { feed, sequence: sequenceOf(this.options.news.scope, feed ?? GLOBAL_FEED), since: request.since, limit: request.limit };
  }

  private async pageOf(query: NewsPageQuery): Promise<{ rows: StoredNews[]; timestamp: number; hasMore: boolean }> {
    const page = await this.store.page(query);
    const timestamp = nextCursor(query.since, page.rows.at(-1)?.ts, page.hasMore, page.watermark);
    // A row that is not a JSON object (written around the module) cannot be an item: left out,
    // and `timestamp` still moves past it, so one bad row never breaks a feed for its readers.
    return { rows: page.rows.filter((row) => isObjectText(row.body) || this.skip(row, 'GET /news', 'it is not a JSON object')), timestamp, hasMore: page.hasMore };
  }

  /**
   * GET /news with `wait`: answers at once when items newer than `since` exist (the same JSON as
   * {@link read}); else holds the poll until an item this caller may see commits on any replica,
   * or `waitMs` passes (then `{items: [], timestamp}`). Resolves undefined when the client went
   * away. 429 when this instance (or this client) holds too many polls already.
   */
  readWaiting(request: NewsWaitingReadRequest): Promise<string | undefined> {
    // Not an async function: a held poll keeps a promise and a callback, not a suspended frame.
    try {
      this.assertSession(request.sessionId);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    if (!this.waits) return this.read(request);
    const feed = request.sessionId === undefined ? undefined : feedOf(request.sessionId);
    spanEvent('restap.news.poll.wait', { [ATTR.restapNewsWaitMs]: request.waitMs });
    return this.waits
      .read({
        feed,
        sequence: sequenceOf(this.options.news.scope, feed ?? GLOBAL_FEED),
        since: request.since,
        limit: request.limit,
        waitMs: request.waitMs,
        client: request.client,
        signal: request.signal,
        held: request.held,
      })
      .then((page) => {
        spanEvent('restap.news.poll.answered', { [ATTR.restapNewsItems]: page?.rows.length ?? 0 });
        if (!page) return undefined;
        // As a plain poll: a row that is no JSON object is left out, the cursor still moves past it.
        const rows = page.rows.filter((row) => isObjectText(row.body) || this.skip(row, 'GET /news', 'it is not a JSON object'));
        return pageJson(rows, page.timestamp, page.hasMore);
      });
  }

  /**
   * Stores an item the agent itself publishes (`job.completed`, status updates, …) and returns it
   * as readers will see it. `@News()` handlers are not called: they consume what others send, and
   * an agent hearing its own news could loop.
   *
   * @example
   * const item = await news.publish({ type: 'job.completed', job_id, data: { result } }, { sessionId });
   */
  async publish(draft: NewsDraft, options: NewsPublishOptions = {}): Promise<NewsItem> {
    if ('session_id' in draft) throw new Error('NewsService.publish(): pass the session as { sessionId } in the options, not as a session_id field.');
    const sessionId = options.sessionId === undefined ? undefined : parseSessionId(options.sessionId);
    if (sessionId === undefined && this.options.news.scope === 'session') {
      throw new Error('NewsService.publish(): news.scope is "session", so every item belongs to a session: pass { sessionId }.');
    }
    const { type, fields } = parseNewsItem(JSON.parse(JSON.stringify(draft)) as unknown, this.options.news.maxTypeLength);
    const body = JSON.stringify(fields);
    const feed = feedOf(sessionId);
    const result = await this.store.append({ feed, sequence: sequenceOf(this.options.news.scope, feed), type, body });
    if (result.outcome === 'conflict') throw new Error('NewsService.publish(): unexpected idempotency conflict without a key.');
    this.wakeups?.committed({ feed, ts: result.ts });
    countNewsAppended('agent');
    return toNewsItem({ id: result.id, ts: result.ts, body });
  }

  /**
   * The news a /talk turn may see, oldest first: the newest `news.contextLimit` items of the
   * session's own feed, plus the global feed in global scope (the global feed alone when the turn
   * has no session; nothing in session scope without one).
   *
   * Whatever storage holds, this never fails on an item: one longer than `maxChars` comes cut (see
   * `cutNewsItem`), one that is not a JSON object or nests deeper than `limits.maxJsonDepth` (old
   * rows, another writer, a bug) is left out, with a log line the first time.
   */
  forTalk(sessionId: string | undefined, options: { maxChars?: number } = {}): Promise<NewsItem[]> {
    const { enabled, scope, contextLimit } = this.options.news;
    if (!enabled) return Promise.resolve([]);
    const feeds = scope === 'global' ? [GLOBAL_FEED] : [];
    if (sessionId !== undefined) feeds.push(feedOf(sessionId));
    if (!feeds.length) return Promise.resolve([]);
    // One then() on the store's read: every /talk turn comes through here.
    return this.store.recent(feeds, contextLimit, options.maxChars).then(this.talkItemsOf);
  }

  /** The items of `rows` a turn may see, in their order (see talkItem). */
  private readonly talkItemsOf = (rows: StoredNews[]): NewsItem[] => {
    const last = this.lastTalkRead;
    if (last !== undefined && sameItems(last.rows, rows)) return last.items.slice();
    const items: NewsItem[] = [];
    let cached = true;
    for (const row of rows) {
      // Only a frozen row can be known by its identity alone; a cut row's item is not the cache's.
      if (cached && (row.cut || !Object.isFrozen(row))) cached = false;
      const item = this.talkItem(row);
      if (item) items.push(item);
      else cached = false;
    }
    this.lastTalkRead = cached ? { rows: rows.slice(), items: items.slice() } : undefined;
    return items;
  };

  private talkItem(row: StoredNews): NewsItem | undefined {
    try {
      return row.cut ? cutNewsItem({ ...row, cut: row.cut }) : this.talkItems.itemOf(row);
    } catch (error) {
      return this.skip(row, '/talk turns', (error as Error)?.message ?? 'it cannot be read');
    }
  }

  /** Logs, once per row and use, that a stored row is left out; returns undefined (nothing to keep). */
  private skip(row: { id: string; ts: number }, where: string, why: string): undefined {
    const key = `${where} ${row.id}:${row.ts}`;
    if (this.skipped.has(key)) return undefined;
    if (this.skipped.size >= 10_000) this.skipped.clear();
    this.skipped.add(key);
    this.logger.warn(`Stored news item ${newsIdOf(row.id)} left out of ${where}: ${why}`);
    return undefined;
  }

  private assertSession(sessionId: string | undefined): void {
    if (sessionId === undefined && this.options.news.scope === 'session') {
      throw new MissingSessionIdException(
        'This agent keeps news per session: send session_id in the Restap-Session-Id header (or the session_id query parameter or body field).',
      );
    }
  }
}

/**
 * A page's `timestamp`: the last row's (left-out rows included) when more are waiting, else the
 * feed's committed high-water mark, never less than `since`.
 */
function nextCursor(since: number, last: number | undefined, hasMore: boolean, watermark: number | undefined): number {
  const end = last ?? since;
  return hasMore ? end : Math.max(since, end, watermark ?? 0);
}

/** True when a stored body is a JSON object's text (what `itemJson` can splice). */
function isObjectText(body: string): boolean {
  const text = body.trim();
  return text.startsWith('{') && text.endsWith('}');
}
