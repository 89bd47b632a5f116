import { isDeepFrozen, NewsItemCache } from '../news/news-item.cache';
import type { NewsItem } from '../../interfaces/news.interface';
import { DEFAULT_CONTEXT_BUDGET, fitContext, newsText } from './talk-context.budget';

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

describe('fitContext (news and history within talk.contextBudget)', () => {
  it('fits the same cached items at the same budget as the turn before without rendering them again', () => {
    const cache = new NewsItemCache();
    const items = [cache.itemOf(row(11)), cache.itemOf(row(12))];
    const first = fitContext(items, [], DEFAULT_CONTEXT_BUDGET);
    const stringify = jest.spyOn(JSON, 'stringify');
    const again = fitContext([...items], [], DEFAULT_CONTEXT_BUDGET);
    expect(stringify).not.toHaveBeenCalled();
    stringify.mockRestore();
    expect(again.news).toEqual(items);
    expect(again.newsTexts).toEqual(items.map((item) => JSON.stringify(item)));
    expect(again.newsTexts).toEqual(first.newsTexts);
    expect(Object.isFrozen(again.news)).toBe(true);
    expect(fitContext(items, [], { totalChars: 64_000, itemChars: 20 }).newsTexts[0]).toContain('[cut: ');
  });

  it('renders an item that may change (a custom news source\'s own object) as it is at each turn', () => {
    const item = { type: 'note', timestamp: 5, news_id: 'news_13', n: 1 } as NewsItem & { n: number };
    expect(fitContext([item], [], DEFAULT_CONTEXT_BUDGET).newsTexts[0]).toContain('"n":1');
    expect(fitContext([item], [], DEFAULT_CONTEXT_BUDGET).newsTexts[0]).toContain('"n":1');
    item.n = 2;
    expect(fitContext([item], [], DEFAULT_CONTEXT_BUDGET).newsTexts[0]).toContain('"n":2');
  });
});
