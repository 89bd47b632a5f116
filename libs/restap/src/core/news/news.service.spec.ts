import { RestapRegistry } from '../registry/restap.registry';
import { MissingSessionIdException } from '../../exceptions';
import { resolveOptions } from '../../restap-options.resolver';
import { NewsAppend, NewsAppendResult, NewsPageQuery, NewsPageRows, NewsStore, StoredNews } from '../../persistence/news.store';
import { hashSessionId } from '../../sessions/session-id';
import { NewsDispatcher } from './news.dispatcher';
import { NewsService } from './news.service';

const SESSION = 'f3bb16ab-295c-4f32-9856-4280fd541b93';
const FEED = hashSessionId(SESSION).toString('hex');

/** Records calls and answers with canned rows. */
class FakeStore extends NewsStore {
  appended: NewsAppend[] = [];
  pages: NewsPageQuery[] = [];
  recentFeeds: string[][] = [];
  nextPage: NewsPageRows = { rows: [], hasMore: false };
  async append(item: NewsAppend): Promise<NewsAppendResult> {
    this.appended.push(item);
    return { outcome: 'created', id: String(this.appended.length), ts: 1000 + this.appended.length };
  }
  async page(query: NewsPageQuery): Promise<NewsPageRows> {
    this.pages.push(query);
    return this.nextPage;
  }
  async recent(feeds: string[]): Promise<StoredNews[]> {
    this.recentFeeds.push(feeds);
    return [{ id: '1', ts: 5, body: '{"type":"t"}' }];
  }
}

const serviceFor = (scope: 'global' | 'session'): { service: NewsService; store: FakeStore } => {
  const store = new FakeStore();
  const service = new NewsService(resolveOptions({ agent: { name: 'A' }, news: { scope } }), store, new NewsDispatcher(new RestapRegistry()));
  return { service, store };
};

describe('NewsService', () => {
  it('gives every /talk turn the same deeply frozen item for a stored row, parsed once', async () => {
    const { service, store } = serviceFor('global');
    const row: StoredNews = { id: '7', ts: 9, body: '{"type":"t","data":{"list":[1,{"x":2}]}}' };
    store.recent = async () => [{ ...row }]; // every read returns new row objects, as the database does
    const [first, second] = await Promise.all([service.forTalk(undefined), service.forTalk(undefined)]);
    expect(first[0]).toBe(second[0]);
    expect(first[0]).toEqual({ type: 't', data: { list: [1, { x: 2 }] }, timestamp: 9, news_id: 'news_7' });
    const data = first[0].data as { list: [number, { x: number }] };
    expect([Object.isFrozen(first[0]), Object.isFrozen(data), Object.isFrozen(data.list), Object.isFrozen(data.list[1])]).toEqual([true, true, true, true]);
    store.recent = async () => [{ ...row, body: '{"type":"other"}' }]; // the same id with other content (a database reset)
    const [other] = await service.forTalk(undefined);
    expect(other).toEqual({ type: 'other', timestamp: 9, news_id: 'news_7' });
  });

  it('a read of the same frozen rows again gives the same items in a new array; rows that are not frozen are checked each time', async () => {
    const { service, store } = serviceFor('global');
    const rows: StoredNews[] = [Object.freeze({ id: '1', ts: 5, body: '{"type":"a"}' }), Object.freeze({ id: '2', ts: 6, body: '{"type":"b"}' })];
    store.recent = async () => rows.slice(); // the same frozen objects every read, as TypeOrmNewsStore hands out while nothing is posted
    const first = await service.forTalk(undefined);
    const again = await service.forTalk(undefined);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect([again[0], again[1]]).toEqual([expect.objectContaining({ news_id: 'news_1' }), expect.objectContaining({ news_id: 'news_2' })]);
    expect(again[0]).toBe(first[0]);
    again.pop(); // the caller's own array: the next turn still sees both
    expect(await service.forTalk(undefined)).toHaveLength(2);
    rows.reverse(); // another order, the same objects
    expect((await service.forTalk(undefined)).map((item) => item.news_id)).toEqual(['news_2', 'news_1']);
    const mutable: StoredNews = { id: '3', ts: 7, body: '{"type":"c"}' };
    store.recent = async () => [mutable];
    expect((await service.forTalk(undefined))[0]).toMatchObject({ type: 'c' });
    mutable.body = '{"type":"d"}'; // the same object with other content: not taken for the same row
    expect((await service.forTalk(undefined))[0]).toMatchObject({ type: 'd' });
  });

  it('global scope: one timestamp sequence for every feed; the session only picks the feed', async () => {
    const { service, store } = serviceFor('global');
    await service.receive({ body: { type: 'a' }, sessionId: undefined, idempotencyKey: undefined });
    await service.receive({ body: { type: 'b', session_id: SESSION }, sessionId: SESSION, idempotencyKey: 'k' });
    expect(store.appended.map(({ feed, sequence }) => ({ feed, sequence }))).toEqual([
      { feed: 'global', sequence: 'global' },
      { feed: FEED, sequence: 'global' },
    ]);
    expect(store.appended[1].body).toBe('{"type":"b"}');
    expect(store.appended[1].requestHash).toBeInstanceOf(Buffer);
    expect(store.appended[0].requestHash).toBeUndefined();
  });

  it('session scope: each feed is its own sequence, and a request without a session is 400 missing_session_id', async () => {
    const { service, store } = serviceFor('session');
    await service.receive({ body: { type: 'a' }, sessionId: SESSION, idempotencyKey: undefined });
    expect(store.appended[0]).toMatchObject({ feed: FEED, sequence: FEED });
    await expect(service.receive({ body: { type: 'a' }, sessionId: undefined, idempotencyKey: undefined })).rejects.toBeInstanceOf(MissingSessionIdException);
    await expect(service.read({ sessionId: undefined, since: 0, limit: 10 })).rejects.toBeInstanceOf(MissingSessionIdException);
  });

  it('answers timestamp = the last item\'s when more are waiting, else the committed high-water mark, never below since', async () => {
    const { service, store } = serviceFor('global');
    const rows = [{ id: '1', ts: 10, body: '{"type":"t"}' }, { id: '2', ts: 12, body: '{"type":"t"}' }];
    store.nextPage = { rows, hasMore: true, watermark: 50 };
    expect(JSON.parse(await service.read({ sessionId: undefined, since: 0, limit: 2 })).timestamp).toBe(12);
    store.nextPage = { rows, hasMore: false, watermark: 50 };
    expect(JSON.parse(await service.read({ sessionId: undefined, since: 0, limit: 2 })).timestamp).toBe(50);
    store.nextPage = { rows: [], hasMore: false };
    expect(JSON.parse(await service.read({ sessionId: undefined, since: 70, limit: 2 })).timestamp).toBe(70);
    expect(store.pages.map((p) => p.feed)).toEqual([undefined, undefined, undefined]);
    await service.read({ sessionId: SESSION, since: 0, limit: 2 });
    expect(store.pages.at(-1)).toEqual({ feed: FEED, sequence: 'global', since: 0, limit: 2 });
  });

  it('forTalk: own feed plus global in global scope; own feed only in session scope; nothing without a session there', async () => {
    const global = serviceFor('global');
    await global.service.forTalk(SESSION);
    await global.service.forTalk(undefined);
    expect(global.store.recentFeeds).toEqual([['global', FEED], ['global']]);
    const session = serviceFor('session');
    expect(await session.service.forTalk(undefined)).toEqual([]);
    expect(await session.service.forTalk(SESSION)).toEqual([{ type: 't', timestamp: 5, news_id: 'news_1' }]);
    expect(session.store.recentFeeds).toEqual([[FEED]]);
  });

  it('publish: validates like POST, needs a session in session scope, and takes the session only from the options', async () => {
    const { service, store } = serviceFor('session');
    await expect(service.publish({ type: 'job.completed' })).rejects.toThrow(/pass \{ sessionId \}/);
    await expect(service.publish({ type: 'x', session_id: SESSION }, { sessionId: SESSION })).rejects.toThrow(/not as a session_id field/);
    await expect(service.publish({ type: '' }, { sessionId: SESSION })).rejects.toThrow(/type is required/);
    const item = await service.publish({ type: 'job.completed', job_id: 'job_1', data: { n: 1 } }, { sessionId: SESSION });
    expect(item).toEqual({ type: 'job.completed', job_id: 'job_1', data: { n: 1 }, timestamp: 1001, news_id: 'news_1' });
    expect(store.appended[0]).toMatchObject({ feed: FEED, sequence: FEED });
    expect(store.appended[0].idempotencyKey).toBeUndefined();
  });
});
