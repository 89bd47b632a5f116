import { NewsPoll, type NewsPollAnswer, type NewsRead } from './news-poll';

const row = (ts: number) => ({ id: String(ts), ts, body: '{}' });
const read = (since: number, stamps: number[], opts: { hasMore?: boolean; watermark?: number } = {}): NewsRead => ({
  since,
  rows: stamps.map(row),
  hasMore: opts.hasMore ?? false,
  watermark: opts.watermark,
});

function held(cursor: number, limit = 10): { poll: NewsPoll; answers: Array<NewsPollAnswer | undefined> } {
  const answers: Array<NewsPollAnswer | undefined> = [];
  return { poll: new NewsPoll(cursor, limit, (page) => answers.push(page)), answers };
}

describe('NewsPoll — a held poll answers exactly what a plain poll from its cursor would', () => {
  it('answers the items newer than its cursor, oldest first; timestamp = the watermark when nothing more waits', () => {
    const { poll, answers } = held(100);
    expect(poll.offer(read(90, [95, 100, 120, 130], { watermark: 140 }))).toBe('answered');
    expect(answers).toEqual([{ rows: [row(120), row(130)], hasMore: false, timestamp: 140 }]);
  });

  it('more items than its limit: the first `limit`, has_more, timestamp = the last one given', () => {
    const { poll, answers } = held(0, 2);
    poll.offer(read(0, [1, 2, 3], { watermark: 3 }));
    expect(answers).toEqual([{ rows: [row(1), row(2)], hasMore: true, timestamp: 2 }]);
  });

  it('a shared read cut off by its limit: what is newer than the cursor, has_more, timestamp = its last item', () => {
    const { poll, answers } = held(10, 5);
    poll.offer(read(0, [5, 11, 12], { hasMore: true, watermark: 99 }));
    expect(answers).toEqual([{ rows: [row(11), row(12)], hasMore: true, timestamp: 12 }]);
  });

  it('never takes a read that started above its cursor: items between would be skipped', () => {
    const { poll, answers } = held(10);
    expect(poll.offer(read(20, [21], { watermark: 21 }))).toBe('skipped');
    expect(answers).toEqual([]);
  });

  it('nothing for it: keeps waiting with its cursor moved to the watermark, and expires with that cursor', () => {
    const { poll, answers } = held(10);
    expect(poll.offer(read(10, [], { watermark: 50 }))).toBe('waiting');
    expect(poll.cursor).toBe(50);
    expect(poll.offer(read(10, [], { watermark: 40 }))).toBe('waiting'); // an older snapshot never moves it back
    expect(poll.cursor).toBe(50);
    poll.expire();
    expect(answers).toEqual([{ rows: [], hasMore: false, timestamp: 50 }]);
  });

  it('a read cut off below its cursor proves nothing: reread, cursor unchanged', () => {
    const { poll } = held(30);
    expect(poll.offer(read(0, [10, 20], { hasMore: true, watermark: 99 }))).toBe('reread');
    expect(poll.cursor).toBe(30);
  });

  it('answers once: a later read, an expiry or an abandon after the answer do nothing', () => {
    const { poll, answers } = held(0);
    poll.offer(read(0, [1], { watermark: 1 }));
    expect(poll.offer(read(0, [1, 2], { watermark: 2 }))).toBe('skipped');
    poll.expire();
    poll.abandon();
    expect(answers).toHaveLength(1);
  });

  it('abandoned (the client went away): settles without a page', () => {
    const { poll, answers } = held(0);
    poll.abandon();
    expect(answers).toEqual([undefined]);
    expect(poll.settled).toBe(true);
  });
});
