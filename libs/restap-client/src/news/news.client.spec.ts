import { RestapClient } from '../restap.client';
import { catalogFixture, fakeFetch, jsonResponse, type FakeAnswer } from '../testing/fake-fetch';

const item = (timestamp: number) => ({ type: 'note', timestamp });

function newsClient(answers: FakeAnswer[]) {
  const fetch = fakeFetch(answers);
  return { news: new RestapClient(catalogFixture(), 'http://agent.test', { fetch }).news, fetch };
}

describe('news.follow', () => {
  it('treats has_more without progress as idle instead of spinning', async () => {
    const controller = new AbortController();
    const { news, fetch } = newsClient([
      jsonResponse({ items: [item(5)], timestamp: 9, has_more: true }),
      jsonResponse({ items: [item(5)], timestamp: 9, has_more: true }), // buggy server: same page again
      () => {
        controller.abort();
        return jsonResponse({ items: [], timestamp: 9 });
      },
    ]);
    const seen: number[] = [];
    for await (const i of news.follow({ minIntervalMs: 1, signal: controller.signal })) seen.push(i.timestamp);
    expect(seen).toEqual([5, 5]);
    expect(fetch.seen.map((r) => new URL(r.url).searchParams.get('since'))).toEqual([null, '5', '5']);
  });

  it('backs off on transient errors and rethrows permanent ones', async () => {
    const { news } = newsClient([
      jsonResponse({ error: 'unavailable' }, 503),
      new TypeError('fetch failed'),
      jsonResponse({ items: [item(1)], timestamp: 2 }),
      jsonResponse({ error: 'forbidden', message: 'no' }, 403),
    ]);
    const seen: number[] = [];
    await expect((async () => {
      for await (const i of news.follow({ minIntervalMs: 1 })) seen.push(i.timestamp);
    })()).rejects.toMatchObject({ code: 'forbidden', status: 403 });
    expect(seen).toEqual([1]);
  });

  it('list rejects a page without items/timestamp', async () => {
    const { news } = newsClient([jsonResponse({ news: [] })]);
    await expect(news.list()).rejects.toMatchObject({ code: 'invalid_response' });
  });
});
