import { isRecord } from '../catalog/catalog.validator';
import { isTransientError, RestapError } from '../errors/restap.error';
import { sleep } from '../http/abort';
import { withRetries } from '../http/retry';
import type { Transport } from '../http/transport';
import type { NewNewsItem, NewsAck, NewsItem, NewsPage } from '../interfaces/news.interface';
import { CONTENT_TYPE_JSON, DEFAULT_NEWS_RETRIES, IDEMPOTENCY_KEY_HEADER, SESSION_ID_HEADER } from '../restap.constants';
import type { NewsFollowOptions, NewsListOptions, NewsPostOptions } from './news.options';

/** What the news client needs from its {@link RestapClient}. */
export interface NewsContext {
  transport: Transport;
  readEndpoint: string;
  writeEndpoint: string;
  /** Longest `wait` GET news accepts (seconds), when the catalog lists the parameter. */
  maxWaitSeconds?: number;
  /** Session sent when the caller gives none (only for feeds the catalog declares session-scoped). */
  defaultSessionId(direction: 'read' | 'write'): string | undefined;
}

/**
 * GET and POST /news. News never gets a reply: posting stores an item the agent may act on,
 * reading returns what happened. Reach it as `client.news`.
 */
export class NewsClient {
  constructor(private readonly ctx: NewsContext) {}

  /**
   * One page of the feed.
   *
   * @example
   * const { items, timestamp, has_more } = await client.news.list({ since: lastSeen, limit: 50 });
   */
  async list(opts: NewsListOptions = {}): Promise<NewsPage> {
    const sessionId = opts.sessionId ?? this.ctx.defaultSessionId('read');
    const wait = this.waitOf(opts.wait);
    const body = await this.ctx.transport.json({
      method: 'GET',
      endpoint: this.ctx.readEndpoint,
      query: { since: opts.since, limit: opts.limit, wait },
      headers: { Accept: CONTENT_TYPE_JSON, ...sessionHeader(sessionId), ...opts.headers },
      signal: opts.signal,
      // A held poll may take `wait` seconds before its first byte: that is not a timeout.
      timeoutMs: wait === undefined ? opts.timeoutMs : (opts.timeoutMs ?? this.ctx.transport.timeoutMs) + wait * 1000,
    });
    if (!isRecord(body) || !Array.isArray(body.items) || typeof body.timestamp !== 'number') {
      throw new RestapError('invalid_response', 'GET news must answer {"items": [...], "timestamp": <ms>}', { details: body });
    }
    return body as NewsPage;
  }

  /**
   * Polls the feed and yields each new item once, oldest first, until `signal` aborts (then it
   * simply ends). Lossless: the next `since` is the largest item timestamp seen, and while the
   * server reports `has_more` the next page is fetched at once. When the catalog offers
   * long-polling, each poll is held by the server (`wait`) and the next one follows at once: an
   * item arrives as soon as it commits. Otherwise idle polls back off exponentially from
   * `minIntervalMs` to `maxIntervalMs`. Transient errors (network, 5xx, 429) back off the same way.
   *
   * @example
   * for await (const item of client.news.follow({ signal })) console.log(item.type, item.message);
   */
  async *follow(opts: NewsFollowOptions = {}): AsyncGenerator<NewsItem> {
    const { minIntervalMs = 1_000, maxIntervalMs = 30_000, signal } = opts;
    let since = opts.since;
    let idleWait = minIntervalMs;
    const wait = this.waitOf(opts.wait ?? this.ctx.maxWaitSeconds);
    while (!signal?.aborted) {
      let page: NewsPage;
      const asked = Date.now();
      try {
        page = await this.list({ ...opts, since, wait });
      } catch (error) {
        if (signal?.aborted) return;
        if (!isTransientError(error)) throw error;
        if (!(await pause(idleWait, signal))) return;
        idleWait = Math.min(idleWait * 2, maxIntervalMs);
        continue;
      }
      let advanced = false;
      for (const item of page.items) {
        // Not the response `timestamp`: it may be the server's clock, and an item committed late
        // with an older timestamp would then be skipped.
        if (typeof item.timestamp === 'number' && (since === undefined || item.timestamp > since)) {
          since = item.timestamp;
          advanced = true;
        }
        yield item;
      }
      // `has_more` without progress would spin forever on a buggy server; treat it as idle.
      if (page.has_more === true && advanced) continue;
      // Held by the server: ask again at once. An empty answer that came back early (a replica
      // shutting down, or a server that ignores `wait`) falls through to the idle back-off.
      if (wait !== undefined && (page.items.length > 0 || Date.now() - asked >= 1_000)) {
        idleWait = minIntervalMs;
        continue;
      }
      const pauseMs = page.items.length > 0 ? minIntervalMs : idleWait;
      idleWait = page.items.length > 0 ? minIntervalMs : Math.min(idleWait * 2, maxIntervalMs);
      if (!(await pause(pauseMs, signal))) return;
    }
  }

  /** `wait` as sent: only when the catalog offers it, capped at its maximum; 0 or absent: none. */
  private waitOf(seconds: number | undefined): number | undefined {
    const max = this.ctx.maxWaitSeconds;
    if (max === undefined || seconds === undefined || !(seconds >= 1)) return undefined;
    return Math.min(Math.floor(seconds), max);
  }

  /**
   * Writes an item. The agent stores it and may act on it, but never replies. Retries network
   * errors, 5xx and 429 (honouring `Retry-After`) with the same `Idempotency-Key`, so an item whose
   * acknowledgement was lost is not stored twice.
   *
   * @example
   * await client.news.post({ type: 'reply', in_reply_to: 'query_123', message: 'Done.' });
   */
  async post(item: NewNewsItem, opts: NewsPostOptions = {}): Promise<NewsAck> {
    const sessionId = opts.sessionId ?? item.session_id ?? this.ctx.defaultSessionId('write');
    const idempotencyKey = opts.idempotencyKey ?? crypto.randomUUID();
    const body = sessionId === undefined ? item : { ...item, session_id: sessionId };
    const ack = await withRetries(
      () =>
        this.ctx.transport.json({
          method: 'POST',
          endpoint: this.ctx.writeEndpoint,
          body,
          headers: {
            Accept: CONTENT_TYPE_JSON,
            [IDEMPOTENCY_KEY_HEADER]: idempotencyKey,
            ...sessionHeader(sessionId),
            ...opts.headers,
          },
          signal: opts.signal,
          timeoutMs: opts.timeoutMs,
        }),
      { retries: opts.retries ?? DEFAULT_NEWS_RETRIES, signal: opts.signal },
    );
    if (!isRecord(ack)) throw new RestapError('invalid_response', 'POST news must answer a JSON object', { details: ack });
    return ack as NewsAck;
  }
}

/** The session id travels in a header so it never lands in URLs and access logs. */
export function sessionHeader(sessionId: string | undefined): Record<string, string> {
  return sessionId === undefined ? {} : { [SESSION_ID_HEADER]: sessionId };
}

/** Sleeps; false when the signal aborted meanwhile (the follow loop then ends quietly). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}
