/** Wire types of GET and POST /news. */

/** Body of POST /news: what a sender writes. */
export interface NewNewsItem {
  type: string;
  from?: string;
  in_reply_to?: string;
  message?: string;
  data?: unknown;
  session_id?: string;
  /** Any other field the sender included, kept as sent. */
  [extra: string]: unknown;
}

/** One item of a GET /news page: the fields posted plus what the server adds. */
export interface NewsItem {
  type: string;
  /** Milliseconds since the epoch; `since` filters on it (exclusive). */
  timestamp: number;
  /** Server-assigned id (nestjs-restap always sends it; the spec does not require it). */
  news_id?: string;
  from?: string;
  in_reply_to?: string;
  message?: string;
  data?: unknown;
  [extra: string]: unknown;
}

/** Response of GET /news. */
export interface NewsPage {
  items: NewsItem[];
  /** Where the read stopped, ms: a safe `since` for the next poll. */
  timestamp: number;
  /** True when more items newer than this page are waiting. */
  has_more?: boolean;
  [extra: string]: unknown;
}

/** Acknowledgement of POST /news. It is never a reply from the agent. */
export interface NewsAck {
  status?: string;
  news_id?: string;
  message?: string;
  [extra: string]: unknown;
}
