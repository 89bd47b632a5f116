import type { NewsItem } from '../../interfaces/news.interface';
import type { StoredNews } from '../../persistence/news.store';
import { withinDepth } from '../../text/json-depth';
import { toNewsItem } from './news-page.writer';

interface Entry {
  ts: number;
  body: string;
  item: NewsItem;
  /** Whether the entry was read since it last took its place in the map's order. */
  used: boolean;
}

/** A text rendered of an item at one `itemChars` (see `newsText`). */
interface KeptText {
  itemChars: number;
  text: string;
}

/**
 * Items a {@link NewsItemCache} froze, all the way down (they never change), each with the text
 * last rendered of it, if any: one table both says which items may keep what is derived from them
 * and keeps it, for as long as the item lives.
 */
const FROZEN_ITEMS = new WeakMap<object, KeptText | undefined>();

/** Whether `item` came from a NewsItemCache, frozen all the way down: what is derived from it may be kept with it. */
export function isDeepFrozen(item: object): boolean {
  return FROZEN_ITEMS.has(item);
}

/** The text kept with a cached item for this `itemChars` (see {@link keepText}), if any. */
export function keptText(item: object, itemChars: number): string | undefined {
  const kept = FROZEN_ITEMS.get(item);
  return kept?.itemChars === itemChars ? kept.text : undefined;
}

/** Keeps `text`, rendered at `itemChars`, with `item` if it came from a NewsItemCache; any other item may change, and keeps nothing. */
export function keepText(item: object, itemChars: number, text: string): void {
  if (FROZEN_ITEMS.has(item)) FROZEN_ITEMS.set(item, { itemChars, text });
}

/**
 * Body characters the cache holds at most, by default (entries unused the longest go first). The
 * parsed objects take several times their text, so this is a few MB of heap at most.
 */
export const NEWS_ITEM_CACHE_CHARS = 1024 * 1024;

/**
 * Parsed, deeply frozen items for `ctx.news`. Every /talk turn reads the newest items of its feeds
 * again, and stored items never change, so without this each turn would parse the same JSON again.
 *
 * An entry is used only when the row's id, ts and body text all match it, so a database reset or
 * restored under a running agent (ids used again) can never hand out another item. Entries are
 * frozen because every turn that sees the item shares the object.
 */
export class NewsItemCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  /**
   * @param maxDepth items nesting deeper are refused (`itemOf` throws): a handler may walk
   *   `ctx.news` recursively, and nothing that deep ever came through the module's own door.
   */
  constructor(
    private readonly maxChars = NEWS_ITEM_CACHE_CHARS,
    private readonly maxDepth = Infinity,
  ) {}

  /** The row's item, parsed and frozen; throws when it is not a JSON object or nests past `maxDepth`. */
  itemOf(row: StoredNews): NewsItem {
    const hit = this.entries.get(row.id);
    if (hit) {
      if (hit.ts === row.ts && hit.body === row.body) {
        hit.used = true;
        return hit.item;
      }
      this.drop(row.id, hit);
    }
    const parsed = toNewsItem(row); // V8's JSON.parse does not recurse: safe at any depth
    if (!withinDepth(parsed, this.maxDepth)) throw new Error(`it nests arrays/objects deeper than ${this.maxDepth} levels`);
    const item = deepFreeze(parsed);
    FROZEN_ITEMS.set(item, undefined);
    if (row.body.length <= this.maxChars) {
      const entry: Entry = { ts: row.ts, body: row.body, item, used: false };
      this.entries.set(row.id, entry);
      this.chars += row.body.length;
      this.evict(entry);
    }
    return item;
  }

  /**
   * Drops entries, oldest in the map's order first, until the bodies fit in `maxChars`; `added`,
   * just stored, stays. An entry read since it took its place is given a new place at the end
   * instead (as if just stored), once.
   */
  private evict(added: Entry): void {
    for (const [id, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      if (entry === added) continue;
      this.entries.delete(id);
      if (entry.used) {
        entry.used = false;
        this.entries.set(id, entry);
      } else {
        this.chars -= entry.body.length;
      }
    }
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

/** Freezes a parsed JSON value and everything in it (iteratively: no stack to blow). */
function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object' || Object.isFrozen(node)) continue;
    Object.freeze(node);
    for (const child of Object.values(node)) stack.push(child);
  }
  return value;
}
