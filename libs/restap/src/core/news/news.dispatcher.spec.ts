import { Logger } from '@nestjs/common';
import { RestapRegistry } from '../registry/restap.registry';
import type { NewsItem } from '../../interfaces/news.interface';
import { NewsDispatcher } from './news.dispatcher';

const item: NewsItem = { type: 'fact', message: 'blue', timestamp: 1, news_id: 'news_1' };
const SESSION = 'sess_9Yx2pK7m-Qd0Rb3nVt1aZw';

describe('NewsDispatcher (@News handlers)', () => {
  let registry: RestapRegistry;
  let dispatcher: NewsDispatcher;
  let errors: string[];

  beforeEach(() => {
    registry = new RestapRegistry();
    dispatcher = new NewsDispatcher(registry);
    errors = [];
    jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void errors.push(String(message)));
  });
  afterEach(() => jest.restoreAllMocks());

  it('calls every handler with its own copy of the item and the session, and ignores return values', async () => {
    const seen: Array<[NewsItem, unknown]> = [];
    const handler = (name: string) => ({
      className: 'Memory',
      methodName: name,
      invoke: (...args: unknown[]) => {
        const [received] = args as [NewsItem];
        seen.push([received, args[1]]);
        received.message = 'mutated';
        return 'a reply that must go nowhere';
      },
    });
    registry.addNewsHandler(handler('a'));
    registry.addNewsHandler(handler('b'));
    await dispatcher.dispatch(item, { sessionId: SESSION });
    expect(seen).toEqual([
      [{ ...item, message: 'mutated' }, { sessionId: SESSION }],
      [{ ...item, message: 'mutated' }, { sessionId: SESSION }],
    ]);
    expect(seen[0][0]).not.toBe(seen[1][0]);
    expect(item.message).toBe('blue');
  });

  it('runs handlers only after the caller has moved on (never inside the request)', async () => {
    const calls: string[] = [];
    registry.addNewsHandler({ className: 'M', methodName: 'h', invoke: () => void calls.push('handler') });
    const done = dispatcher.dispatch(item, {});
    calls.push('ack');
    await done;
    expect(calls).toEqual(['ack', 'handler']);
  });

  it('logs a failing handler without the session id and keeps calling the others', async () => {
    const ran: string[] = [];
    registry.addNewsHandler({ className: 'M', methodName: 'sync', invoke: () => { throw new Error(`bad session ${SESSION}`); } });
    registry.addNewsHandler({ className: 'M', methodName: 'async', invoke: async () => Promise.reject(new TypeError('nope')) });
    registry.addNewsHandler({ className: 'M', methodName: 'ok', invoke: () => void ran.push('ok') });
    await expect(dispatcher.dispatch(item, { sessionId: SESSION })).resolves.toBeUndefined();
    expect(ran).toEqual(['ok']);
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).not.toContain(SESSION);
    expect(errors[0]).toBe('@News() handler M.sync failed on news_1: Error: bad session [session_id]');
    expect(errors[1]).toBe('@News() handler M.async failed on news_1: TypeError: nope');
  });
});
