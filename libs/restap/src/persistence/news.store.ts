/** The sequence shared by every feed in global scope (`NewsAppend.sequence`, `NewsPageQuery.sequence`). */
export const GLOBAL_SEQUENCE = 'global';

/** One item to append to a feed. */
export interface NewsAppend {
  /** 'global', or the hex SHA-256 of the session the item belongs to (see `feedOf`). */
  feed: string;
  /**
   * The timestamp sequence the item takes its `ts` from: 'global' in global scope (one order over
   * every feed, since a read without a session returns all of them), the feed itself in session scope.
   */
  sequence: string;
  type: string;
  /** The item as JSON text (the client's fields less session_id); read back byte for byte. */
  body: string;
  idempotencyKey?: string;
  /** SHA-256 of the canonical item; compared when the idempotency key is seen again. */
  requestHash?: Buffer;
}

/** What an append did: stored a row, found the same request already stored, or found a conflict. */
export type NewsAppendResult =
  | { outcome: 'created'; id: string; ts: number }
  | { outcome: 'replayed'; id: string; ts: number }
  | { outcome: 'conflict' };

/** A page read: `feed` undefined reads every feed. */
export interface NewsPageQuery {
  feed?: string;
  /** Sequence whose committed high-water mark is read in the same snapshot as the items. */
  sequence: string;
  /** Exclusive lower bound on `ts`. */
  since: number;
  /** Rows to return at most; one more is fetched to tell whether more are waiting. */
  limit: number;
}

/** A stored item with its body still as the JSON text it was written as. */
export interface StoredNews {
  id: string;
  ts: number;
  /** The item's JSON text; only its first characters when `cut` is set. */
  body: string;
  /** Set by `recent` when the body is longer than the `maxChars` asked for. */
  cut?: {
    /** Length of the whole body, characters. */
    chars: number;
    /** The item's `type` (the cut body may not reach it). */
    type: string;
  };
}

export interface NewsPageRows {
  rows: StoredNews[];
  hasMore: boolean;
  /**
   * The sequence's last committed `ts` as of the read's snapshot (undefined before the first
   * item): every item of the sequence at or below it was visible to the read.
   */
  watermark?: number;
}

/**
 * A page as the wire JSON of its items (GET /news without `wait`), built by the store so that no
 * row object or per-item string is made on the agent.
 */
export interface NewsPageText {
  /**
   * The page's items as JSON texts, comma-separated, oldest first ('' for none): each the stored
   * body with `"timestamp"` and `"news_id"` appended, exactly as `itemJson` writes it. A row whose
   * body is not a JSON object is left out (and listed in `skipped`).
   */
  items: string;
  /** `ts` of the last row within the limit, left-out rows included; undefined when there is none. */
  last?: number;
  hasMore: boolean;
  /** As `NewsPageRows.watermark`. */
  watermark?: number;
  /** Rows within the limit left out of `items` because their body is not a JSON object. */
  skipped: Array<{ id: string; ts: number }>;
}

/**
 * Storage of /news items. Services never build SQL; `TypeOrmNewsStore` is the implementation.
 * Whatever the backend, `append` must give each sequence strictly increasing `ts` in commit order,
 * so a reader that pages by `ts > since` never misses or repeats an item.
 */
export abstract class NewsStore {
  /** Durably stores one item (committed when the promise resolves), honouring the idempotency key. */
  abstract append(item: NewsAppend): Promise<NewsAppendResult>;

  /** Items with `ts > since`, oldest first. */
  abstract page(query: NewsPageQuery): Promise<NewsPageRows>;

  /**
   * The same page as `page`, as the items' wire JSON text (see {@link NewsPageText}). A store
   * without it (undefined) makes GET /news build that text from `page` instead.
   */
  pageText(_query: NewsPageQuery): Promise<NewsPageText | undefined> {
    return Promise.resolve(undefined);
  }

  /**
   * The newest `limit` items of the given feeds, oldest first. A body longer than `maxChars`
   * comes back as its first `maxChars` characters, with `cut` set (default: no cap).
   */
  abstract recent(feeds: string[], limit: number, maxChars?: number): Promise<StoredNews[]>;

  /**
   * The committed high-water mark (`NewsPageRows.watermark`) of each given sequence that has one.
   * Held polls check it on a slow timer, in one statement, to find feeds whose wake-up was lost.
   * A store without it (undefined) makes them re-read every feed instead.
   */
  watermarks(_sequences: string[]): Promise<Map<string, number> | undefined> {
    return Promise.resolve(undefined);
  }

  /**
   * Which of the given feeds hold an item with `ts > since` (each feed its own `since`), in one
   * statement. Held polls check it on the slow timer: in global scope one sequence spans every
   * feed, so its watermark moves with any feed's item and cannot tell which feeds have news.
   * A store without it (undefined) makes them fall back to `watermarks`.
   */
  fresh(_feeds: ReadonlyArray<{ feed: string; since: number }>): Promise<Set<string> | undefined> {
    return Promise.resolve(undefined);
  }
}
