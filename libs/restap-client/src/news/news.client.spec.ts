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

  describe('long-poll (`wait` on GET news, issue 18)', () => {
    /** A catalog whose GET news lists `wait` up to `max` seconds. */
    function waitingClient(answers: FakeAnswer[], max = 30) {
      const catalog = catalogFixture();
      catalog.capabilities = catalog.capabilities.map((c) =>
        c.id === 'news' ? { ...c, parameters: [{ name: 'wait', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: max } }] } : c,
      );
      const fetch = fakeFetch(answers);
      return { news: new RestapClient(catalog, 'http://agent.test', { fetch }).news, fetch };
    }
    const param = (url: string, name: string) => new URL(url).searchParams.get(name);

    it('follow holds every poll with the catalog maximum and asks again at once (no pause) after items', async () => {
      const controller = new AbortController();
      const { news, fetch } = waitingClient([
        jsonResponse({ items: [item(3)], timestamp: 3 }),
        jsonResponse({ items: [item(4)], timestamp: 4 }),
        () => {
          controller.abort();
          return jsonResponse({ items: [], timestamp: 4 });
        },
      ], 25);
      const started = Date.now();
      const seen: number[] = [];
      for await (const i of news.follow({ minIntervalMs: 5_000, signal: controller.signal })) seen.push(i.timestamp);
      expect(seen).toEqual([3, 4]);
      expect(Date.now() - started).toBeLessThan(4_000); // minIntervalMs (5 s) was never slept
      expect(fetch.seen.map((r) => [param(r.url, 'since'), param(r.url, 'wait')])).toEqual([[null, '25'], ['3', '25'], ['4', '25']]);
    });

    it('an agent whose catalog does not list wait gets plain polls: no wait parameter, even when asked', async () => {
      const { news, fetch } = newsClient([jsonResponse({ items: [], timestamp: 1 })]);
      await news.list({ wait: 10 });
      expect(param(fetch.seen[0].url, 'wait')).toBeNull();
    });

    it('list caps wait at the catalog maximum; follow with wait: 0 polls plainly', async () => {
      const controller = new AbortController();
      const { news, fetch } = waitingClient([
        jsonResponse({ items: [], timestamp: 1 }),
        () => {
          controller.abort();
          return jsonResponse({ items: [], timestamp: 1 });
        },
      ], 20);
      await news.list({ wait: 60 });
      for await (const _ of news.follow({ wait: 0, signal: controller.signal })) void _;
      expect(fetch.seen.map((r) => param(r.url, 'wait'))).toEqual(['20', null]);
    });
  });
});
