import { Inject, Injectable, Optional } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../../restap.constants';
import { IdempotencyKeyReusedException, MissingSessionIdException } from '../../exceptions';
import type { ResolvedRestapOptions } from '../../interfaces/restap-options.interface';
import type { NewsAck, NewsItem } from '../../interfaces/news.interface';
import { NewsStore } from '../../persistence/news.store';
import { parseSessionId } from '../../sessions/session-id';
import type { TalkNewsSource } from '../talk/talk-news.source';
import { feedOf, GLOBAL_FEED, sequenceOf } from './news-feed';
import { newsIdOf, pageJson, toNewsItem } from './news-page.writer';
import { NewsItemCache } from './news-item.cache';
import type { NewsDraft, NewsPublishOptions } from './news-publish.options';
import { parseNewsItem, requestHash } from './news-request.parser';
import { NewsDispatcher } from './news.dispatcher';
import { NewsWaits } from './news-waits';
import { NewsWakeups } from './news-wakeups';

/** A validated POST /news request. */
export interface NewsReceiveRequest {
  body: unknown;
  sessionId: string | undefined;
  idempotencyKey: string | undefined;
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
  private readonly talkItems = new NewsItemCache();

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly store: NewsStore,
    private readonly dispatcher: NewsDispatcher,
    @Optional() private readonly wakeups?: NewsWakeups,
    @Optional() private readonly waits?: NewsWaits,
  ) {}

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
    if (result.outcome === 'created') this.wakeups?.committed({ feed, ts: result.ts });
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
    this.assertSession(request.sessionId);
    const { scope } = this.options.news;
    const feed = request.sessionId === undefined ? undefined : feedOf(request.sessionId);
    const page = await this.store.page({
      feed,
      sequence: sequenceOf(scope, feed ?? GLOBAL_FEED),
      since: request.since,
      limit: request.limit,
    });
    const last = page.rows.at(-1)?.ts ?? request.since;
    const timestamp = page.hasMore ? last : Math.max(request.since, last, page.watermark ?? 0);
    return pageJson(page.rows, timestamp, page.hasMore);
  }

  /**
   * GET /news with `wait`: answers at once when items newer than `since` exist (the same JSON as
   * {@link read}); else holds the poll until an item this caller may see commits on any replica,
   * or `waitMs` passes (then `{items: [], timestamp}`). Resolves undefined when the client went
   * away. 429 when this instance (or this client) holds too many polls already.
   */
  async readWaiting(request: NewsWaitingReadRequest): Promise<string | undefined> {
    this.assertSession(request.sessionId);
    if (!this.waits) return this.read(request);
    const feed = request.sessionId === undefined ? undefined : feedOf(request.sessionId);
    const page = await this.waits.read({
      feed,
      sequence: sequenceOf(this.options.news.scope, feed ?? GLOBAL_FEED),
      since: request.since,
      limit: request.limit,
      waitMs: request.waitMs,
      client: request.client,
      signal: request.signal,
    });
    return page && pageJson(page.rows, page.timestamp, page.hasMore);
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
    return toNewsItem({ id: result.id, ts: result.ts, body });
  }

  /**
   * The news a /talk turn may see, oldest first: the newest `news.contextLimit` items of the
   * session's own feed, plus the global feed in global scope (the global feed alone when the turn
   * has no session; nothing in session scope without one).
   */
  async forTalk(sessionId: string | undefined): Promise<NewsItem[]> {
    const { enabled, scope, contextLimit } = this.options.news;
    if (!enabled) return [];
    const feeds = scope === 'global' ? [GLOBAL_FEED] : [];
    if (sessionId !== undefined) feeds.push(feedOf(sessionId));
    if (!feeds.length) return [];
    const rows = await this.store.recent(feeds, contextLimit);
    return rows.map((row) => this.talkItems.itemOf(row));
  }

  private assertSession(sessionId: string | undefined): void {
    if (sessionId === undefined && this.options.news.scope === 'session') {
      throw new MissingSessionIdException(
        'This agent keeps news per session: send session_id in the Restap-Session-Id header (or the session_id query parameter or body field).',
      );
    }
  }
}
