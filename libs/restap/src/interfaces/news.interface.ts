/** A /news item as it travels on the wire (GET /news items, `@News()` handlers, `ctx.news`). */
export interface NewsItem {
  type: string;
  /** Milliseconds since the epoch; strictly increasing in commit order within a feed. */
  timestamp: number;
  news_id: string;
  from?: string;
  in_reply_to?: string;
  message?: string;
  data?: unknown;
  /** Any other field the sender included, kept as sent. */
  [extra: string]: unknown;
}

/** `GET /news` answer. */
export interface NewsPage {
  items: NewsItem[];
  /**
   * Where the read stopped, ms: the last item's timestamp when `has_more`, else the feed's committed
   * high-water mark (never below `since`). Every item at or below it has been returned, so it is a
   * safe `since` for the next poll.
   */
  timestamp: number;
  /** True when more items newer than the last one returned are waiting. */
  has_more: boolean;
}

/** `POST /news` answer (spec, end-to-end example flow). */
export interface NewsAck {
  status: 'received';
  news_id: string;
  message: string;
}
