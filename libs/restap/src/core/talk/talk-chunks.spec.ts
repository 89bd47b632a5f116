import { Observable, of, throwError } from 'rxjs';
import { normalizeChunk, openChunkSource } from './talk-chunks';

async function drain(result: unknown): Promise<unknown[]> {
  const source = openChunkSource(result);
  const values: unknown[] = [];
  for (let step = await source.next(); !step.done; step = await source.next()) values.push(step.value);
  return values;
}

describe('@Talk() return values (string | Promise<string> | Observable | AsyncIterable)', () => {
  it.each<[string, () => unknown]>([
    ['a string', () => 'hi'],
    ['a Promise<string>', () => Promise.resolve('hi')],
    ['an Observable', () => of('h', 'i')],
    ['an AsyncIterable', () => (async function* () { yield 'h'; yield 'i'; })()],
    ['a Promise of an AsyncIterable', async () => (async function* () { yield 'h'; yield 'i'; })()],
  ])('reads %s', async (_kind, make) => {
    expect((await drain(make())).join('')).toBe('hi');
  });

  it.each([[undefined], [42], [['h', 'i']], [{ text: 'hi' }]])('refuses %j with a message saying what to return', (value) => {
    expect(() => openChunkSource(value)).toThrow(/return a string, a Promise of one, an Observable or an AsyncIterable/);
  });

  it('a Promise resolving to something else is refused when read', async () => {
    await expect(drain(Promise.resolve(42))).rejects.toThrow(TypeError);
  });

  it('an Observable error surfaces on the next read', async () => {
    await expect(drain(throwError(() => new Error('boom')))).rejects.toThrow('boom');
  });

  it('cancel() unsubscribes an Observable and returns an iterator', async () => {
    let unsubscribed = false;
    const source = openChunkSource(new Observable<string>(() => () => (unsubscribed = true)));
    source.cancel();
    expect(unsubscribed).toBe(true);
    let finalized = false;
    const iterable = (async function* () {
      try {
        yield 'a';
        yield 'b';
      } finally {
        finalized = true;
      }
    })();
    const it = openChunkSource(iterable);
    await it.next();
    it.cancel();
    await new Promise((r) => setImmediate(r));
    expect(finalized).toBe(true);
  });
});

describe('TalkChunk normalisation', () => {
  it('strings and message.delta chunks are text; empty text is skipped', () => {
    expect(normalizeChunk('a')).toEqual({ event: 'message.delta', text: 'a' });
    expect(normalizeChunk({ event: 'message.delta', text: 'b' })).toEqual({ event: 'message.delta', text: 'b' });
    expect(normalizeChunk('')).toBeUndefined();
  });

  it.each(['status', 'tool.start', 'tool.delta', 'tool.end', 'artifact'])('the optional event %s passes through unchanged', (event) => {
    const chunk = { event, name: 'x', extra: { n: 1 } };
    expect(normalizeChunk(chunk)).toBe(chunk);
  });

  it.each([
    [{ event: 'message.start' }],
    [{ event: 'done' }],
    [{ event: 'error', message: 'x' }],
    [{ event: 'custom' }],
    [{ text: 'no event' }],
    [42],
    [null],
  ])('refuses %j (the required events are the module\'s to send)', (value) => {
    expect(() => normalizeChunk(value)).toThrow(TypeError);
  });
});
