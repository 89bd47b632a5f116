/** Wire types of GET and POST /news. */

/** One item of the feed: the fields of a posted item plus what the server adds. */
export interface NewsItem extends NewNewsItem {
  /** Milliseconds since the epoch; `since` filters on it (exclusive). */
  timestamp: number;
  /** Server-assigned id (not required by the spec, sent by most servers). */
  news_id?: string;
}

/** Response of GET /news. */
export interface NewsPage {
  items: NewsItem[];
  timestamp: number;
  /** True when more items newer than this page are waiting. */
  has_more?: boolean;
  [extra: string]: unknown;
}

/** Body of POST /news. */
export interface NewNewsItem {
  type: string;
  from?: string;
  in_reply_to?: string;
  message?: string;
  data?: unknown;
  session_id?: string;
  [extra: string]: unknown;
}

/** Acknowledgement of POST /news. It is never a reply from the agent. */
export interface NewsAck {
  status?: string;
  news_id?: string;
  message?: string;
  [extra: string]: unknown;
}
