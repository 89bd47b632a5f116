import { isDeepFrozen, NewsItemCache } from '../news/news-item.cache';
import type { NewsItem } from '../../interfaces/news.interface';
import { newsText } from './talk-context.budget';

const row = (id: number): { id: string; ts: number; body: string } => ({ id: String(id), ts: 1000 + id, body: `{"type":"note","n":${id},"pad":"${'x'.repeat(40)}"}` });

describe('newsText (one news item as the model reads it, cut to talk.contextBudget.itemChars)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('renders a stored item once: every later turn that sees the same cached item gets the same text without stringifying it again', () => {
    const item = new NewsItemCache().itemOf(row(1));
    expect(isDeepFrozen(item)).toBe(true);
    const first = newsText(item, 8000);
    expect(first).toBe(JSON.stringify(item));
    const stringify = jest.spyOn(JSON, 'stringify');
    expect(newsText(item, 8000)).toBe(first);
    expect(stringify).not.toHaveBeenCalled();
  });

  it('renders again for another itemChars (a cut text carries its marker)', () => {
    const item = new NewsItemCache().itemOf(row(2));
    const whole = newsText(item, 8000)!;
    const cut = newsText(item, 20)!;
    expect(cut.startsWith(whole.slice(0, 20))).toBe(true);
    expect(cut).toContain(`[cut: ${whole.length} characters in all, the first 20 shown]`);
    expect(newsText(item, 8000)).toBe(whole);
  });

  it('keeps nothing for an item that may change (a custom news source\'s own object): each turn renders it as it is then', () => {
    const item = { type: 'note', timestamp: 5, news_id: 'news_9', n: 1 } as NewsItem & { n: number };
    expect(isDeepFrozen(item)).toBe(false);
    expect(newsText(item, 8000)).toContain('"n":1');
    item.n = 2;
    expect(newsText(item, 8000)).toContain('"n":2');
  });

  it('keeps nothing for an item frozen only at its top (its nested objects may still change)', () => {
    const nested = { n: 1 };
    const item = Object.freeze({ type: 'note', timestamp: 5, news_id: 'news_10', nested }) as unknown as NewsItem;
    expect(isDeepFrozen(item)).toBe(false);
    expect(newsText(item, 8000)).toContain('"n":1');
    nested.n = 2;
    expect(newsText(item, 8000)).toContain('"n":2');
  });
});
