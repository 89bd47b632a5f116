import type { NewsItem } from '../../interfaces/news.interface';
import type { StoredNews } from '../../persistence/news.store';
import { toNewsItem } from './news-page.writer';

interface Entry {
  ts: number;
  body: string;
  item: NewsItem;
}

/**
 * Body characters the cache holds at most, by default (least recently used entries go first). The
 * parsed objects take several times their text, so this is a few MB of heap at most.
 */
export const NEWS_ITEM_CACHE_CHARS = 1024 * 1024;

/**
 * Parsed, deeply frozen items for `ctx.news`. Every /talk turn reads the newest items of its feeds
 * again, and stored items never change, so without this each turn would parse the same JSON again
 * (measured with callgrind, 20 items in the feed: ~19k instructions an item, ~16 % of a turn).
 *
 * An entry is used only when the row's id, ts and body text all match it, so a database reset or
 * restored under a running agent (ids used again) can never hand out another item. Entries are
 * frozen because every turn that sees the item shares the object.
 */
export class NewsItemCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(private readonly maxChars = NEWS_ITEM_CACHE_CHARS) {}

  itemOf(row: StoredNews): NewsItem {
    const hit = this.entries.get(row.id);
    if (hit) {
      this.drop(row.id, hit);
      if (hit.ts === row.ts && hit.body === row.body) {
        this.entries.set(row.id, hit); // now the most recently used
        this.chars += hit.body.length;
        return hit.item;
      }
    }
    const item = deepFreeze(toNewsItem(row));
    if (row.body.length <= this.maxChars) {
      this.entries.set(row.id, { ts: row.ts, body: row.body, item });
      this.chars += row.body.length;
      for (const [id, entry] of this.entries) {
        if (this.chars <= this.maxChars) break;
        this.drop(id, entry);
      }
    }
    return item;
  }

  /** Items held now (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private drop(id: string, entry: Entry): void {
    this.entries.delete(id);
    this.chars -= entry.body.length;
  }
}

/** Freezes a parsed JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
