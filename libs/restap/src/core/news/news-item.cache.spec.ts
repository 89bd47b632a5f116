import type { StoredNews } from '../../persistence/news.store';
import { NewsItemCache } from './news-item.cache';

const row = (id: number, body = `{"type":"t","n":${id}}`): StoredNews => ({ id: String(id), ts: 1000 + id, body });

describe('NewsItemCache (the parsed items of ctx.news)', () => {
  it('answers a row it has seen with the same frozen item, whatever the row object', () => {
    const cache = new NewsItemCache();
    const item = cache.itemOf(row(1));
    expect(item).toEqual({ type: 't', n: 1, timestamp: 1001, news_id: 'news_1' });
    expect(Object.isFrozen(item)).toBe(true);
    expect(cache.itemOf({ ...row(1) })).toBe(item);
  });

  it('parses again when the id is the same but the ts or the body differ (a database reset under the agent)', () => {
    const cache = new NewsItemCache();
    const item = cache.itemOf(row(1));
    expect(cache.itemOf({ ...row(1), ts: 5 })).toEqual({ type: 't', n: 1, timestamp: 5, news_id: 'news_1' });
    expect(cache.itemOf(row(1, '{"type":"u"}'))).toEqual({ type: 'u', timestamp: 1001, news_id: 'news_1' });
    expect(cache.itemOf(row(1, '{"type":"u"}'))).not.toBe(item);
    expect(cache.size).toBe(1);
  });

  it('holds at most maxChars of bodies, dropping the least recently used first', () => {
    const body = (n: number): string => `{"type":"t","n":${n},"pad":"${'x'.repeat(80)}"}`;
    const cache = new NewsItemCache(body(1).length * 3);
    const first = cache.itemOf(row(1, body(1)));
    cache.itemOf(row(2, body(2)));
    cache.itemOf(row(3, body(3)));
    expect(cache.itemOf(row(1, body(1)))).toBe(first); // 1 is now the most recently used
    cache.itemOf(row(4, body(4))); // over budget: 2 goes
    expect(cache.size).toBe(3);
    expect(cache.itemOf(row(1, body(1)))).toBe(first);
    const again = cache.itemOf(row(2, body(2)));
    expect(again).toEqual({ type: 't', n: 2, pad: 'x'.repeat(80), timestamp: 1002, news_id: 'news_2' });
  });

  it('keeps the row just stored when every older one was read since, dropping the oldest of those', () => {
    const body = (n: number): string => `{"type":"t","n":${n},"pad":"${'x'.repeat(80)}"}`;
    const cache = new NewsItemCache(body(1).length * 3);
    const first = cache.itemOf(row(1, body(1)));
    const second = cache.itemOf(row(2, body(2)));
    const third = cache.itemOf(row(3, body(3)));
    for (const [n, item] of [[1, first], [2, second], [3, third]] as const) expect(cache.itemOf(row(n, body(n)))).toBe(item);
    const fourth = cache.itemOf(row(4, body(4))); // over budget: 1 goes
    expect(cache.size).toBe(3);
    expect(cache.itemOf(row(4, body(4)))).toBe(fourth);
    expect(cache.itemOf(row(2, body(2)))).toBe(second);
    expect(cache.itemOf(row(3, body(3)))).toBe(third);
  });

  it('does not keep a body larger than the whole budget, and still answers it', () => {
    const cache = new NewsItemCache(10);
    expect(cache.itemOf(row(1))).toEqual({ type: 't', n: 1, timestamp: 1001, news_id: 'news_1' });
    expect(cache.size).toBe(0);
  });
});
