import type { NewsPageRows, StoredNews } from '../../persistence/news.store';

/** What a held poll answers with: the rows, the cursor to poll from next, and whether more are waiting. */
export interface NewsPollAnswer {
  rows: StoredNews[];
  timestamp: number;
  hasMore: boolean;
}

/** One read of a feed: what it returned for `ts > since`, in one snapshot. */
export interface NewsRead extends NewsPageRows {
  since: number;
}

/** What a read did for a poll. */
export type NewsOffer = 'answered' | 'waiting' | 'reread' | 'skipped';

/**
 * A poll held on one feed. Its `cursor` starts at the client's `since` and only moves forward to
 * points the poll has proved empty: `since < ts <= watermark` held no item of its feed in a
 * snapshot whose sequence watermark was that high, and every item at or below a watermark was
 * already visible in it (see TypeOrmNewsStore). So any read whose `since` is at or below the
 * cursor can answer the poll, whether it was the poll's own read or one shared with other polls,
 * and whenever it started: the items it returns are exactly what a plain poll from the cursor
 * would return, and the answer's `timestamp` is safe to poll from.
 */
export class NewsPoll {
  settled = false;

  constructor(
    public cursor: number,
    readonly limit: number,
    private readonly answer: (page: NewsPollAnswer | undefined) => void,
  ) {}

  /**
   * Offers a read: answers when it holds items newer than the cursor (at most `limit`, oldest
   * first, as GET /news would), else advances the cursor to the read's watermark. 'reread': the
   * read was cut off by its limit below this poll's cursor, so it proves nothing for it.
   */
  offer(read: NewsRead): NewsOffer {
    if (this.settled || read.since > this.cursor) return 'skipped';
    const cursor = this.cursor;
    const mine = read.rows.filter((row) => row.ts > cursor);
    if (mine.length > this.limit) {
      const rows = mine.slice(0, this.limit);
      this.settle({ rows, hasMore: true, timestamp: rows[rows.length - 1].ts });
      return 'answered';
    }
    if (mine.length) {
      const last = mine[mine.length - 1].ts;
      this.settle({ rows: mine, hasMore: read.hasMore, timestamp: read.hasMore ? last : Math.max(cursor, last, read.watermark ?? 0) });
      return 'answered';
    }
    if (read.hasMore) return 'reread';
    this.cursor = Math.max(cursor, read.watermark ?? 0);
    return 'waiting';
  }

  /** Answers with nothing new: the cursor is still a safe place to poll from. */
  expire(): void {
    this.settle({ rows: [], hasMore: false, timestamp: this.cursor });
  }

  /** The client went away: no answer. */
  abandon(): void {
    this.settle(undefined);
  }

  private settle(page: NewsPollAnswer | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.answer(page);
  }
}
