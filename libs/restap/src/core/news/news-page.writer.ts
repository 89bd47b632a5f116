import type { NewsItem } from '../../interfaces/news.interface';
import type { StoredNews } from '../../persistence/news.store';
import { integerText } from '../../text/integer-text';

/** The public id of a stored item. */
export const newsIdOf = (id: string): string => `news_${id}`;

/**
 * One item as wire JSON: the stored body text with `timestamp` and `news_id` appended, spliced
 * rather than parsed and re-serialized, so what was sent is what is read, byte for byte.
 * `pageTextSql` (TypeOrmNewsStore) writes the same text in SQL for plain polls: change both.
 */
export function itemJson(row: StoredNews): string {
  const body = row.body.trim();
  if (!body.startsWith('{') || !body.endsWith('}')) {
    throw new Error(`Stored news item ${row.id} is not a JSON object.`);
  }
  const server = `"timestamp":${integerText(row.ts)},"news_id":${JSON.stringify(newsIdOf(row.id))}`;
  const inner = body.slice(1, -1).trim();
  return `{${inner}${inner ? ',' : ''}${server}}`;
}

/** GET /news answer text: `{items, timestamp, has_more}`. */
export function pageJson(rows: StoredNews[], timestamp: number, hasMore: boolean): string {
  return pageText(rows.map(itemJson).join(','), timestamp, hasMore);
}

/** GET /news answer text around items already written as JSON (comma-separated `itemJson` texts). */
export function pageText(items: string, timestamp: number, hasMore: boolean): string {
  return `{"items":[${items}],"timestamp":${integerText(timestamp)},"has_more":${hasMore}}`;
}

/** A stored item as an object (for `@News()` handlers and `ctx.news`). */
export function toNewsItem(row: StoredNews): NewsItem {
  return JSON.parse(itemJson(row)) as NewsItem;
}
