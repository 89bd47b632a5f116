import type { NewsAck as WireNewsAck, NewsItem as WireNewsItem, NewsPage as WireNewsPage } from '../wire/news';

export type { NewNewsItem } from '../wire/news';

/**
 * A /news item as it travels on the wire (GET /news items, `@News()` handlers, `ctx.news`). The
 * wire type (see `../wire`), with what this module always sends: a `news_id`.
 */
export interface NewsItem extends WireNewsItem {
  news_id: string;
}

/** `GET /news` answer: the wire's page, with what this module always sends (`news_id` on every item, `has_more`). */
export interface NewsPage extends WireNewsPage {
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
export interface NewsAck extends WireNewsAck {
  status: 'received';
  news_id: string;
  message: string;
}
