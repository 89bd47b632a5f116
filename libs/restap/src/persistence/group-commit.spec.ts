import { context, trace } from '@opentelemetry/api';
import { GroupCommit, sharedReads } from './group-commit';
import { useInMemoryTracing } from '../../../../test/support/in-memory-tracing';

/** A runner that records its batches and answers each item with `item * 10` after a tick. */
function recording(fail?: (items: number[]) => unknown) {
  const batches: Array<{ lane: string; items: number[] }> = [];
  const run = async (lane: string, items: number[]): Promise<number[]> => {
    batches.push({ lane, items: [...items] });
    await new Promise((resolve) => setImmediate(resolve));
    const error = fail?.(items);
    if (error) throw error;
    return items.map((n) => n * 10);
  };
  return { batches, run };
}

describe('GroupCommit (concurrent statements share one batch)', () => {
  it('runs a lone item at once, alone', async () => {
    const { batches, run } = recording();
    const commit = new GroupCommit(run, 64);
    const pending = commit.submit('a', 1);
    expect(batches).toEqual([{ lane: 'a', items: [1] }]); // started synchronously: no added delay
    await expect(pending).resolves.toBe(10);
  });

  it('puts every item that arrived while a batch was in flight into the next batch, in arrival order', async () => {
    const { batches, run } = recording();
    const commit = new GroupCommit(run, 64);
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => commit.submit('a', n)));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4, 5]]);
  });

  it('takes at most `max` items a batch', async () => {
    const { batches, run } = recording();
    const commit = new GroupCommit(run, 2);
    await Promise.all([1, 2, 3, 4, 5, 6].map((n) => commit.submit('a', n)));
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it('keeps lanes apart: each lane has its own batch in flight', async () => {
    const { batches, run } = recording();
    const commit = new GroupCommit(run, 64);
    await Promise.all([commit.submit('a', 1), commit.submit('b', 2), commit.submit('a', 3), commit.submit('b', 4)]);
    expect(batches).toEqual([
      { lane: 'a', items: [1] },
      { lane: 'b', items: [2] },
      { lane: 'a', items: [3] },
      { lane: 'b', items: [4] },
    ]);
  });

  it('runs the items of a failed batch again one at a time, so only the item at fault fails', async () => {
    const bad = new Error('item 3 is bad');
    const { batches, run } = recording((items) => (items.includes(3) ? bad : undefined));
    const commit = new GroupCommit(run, 64);
    const settled = await Promise.allSettled([1, 2, 3, 4].map((n) => commit.submit('a', n)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : s.reason))).toEqual([10, 20, bad, 40]);
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('fails the whole batch at once when storage is unavailable (no retry one by one)', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { batches, run } = recording((items) => (items.length > 1 ? down : undefined));
    const commit = new GroupCommit(run, 64);
    const settled = await Promise.allSettled([1, 2, 3].map((n) => commit.submit('a', n)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(batches).toHaveLength(2);
  });

  it('settles an item with the promise its runner returned, without holding up the lane', async () => {
    let release!: (value: number) => void;
    const slow = new Promise<number>((resolve) => (release = resolve));
    const commit = new GroupCommit<number, number>(async (_lane, items) => items.map((n) => (n === 1 ? slow : n)), 64);
    const first = commit.submit('a', 1);
    await expect(commit.submit('a', 2)).resolves.toBe(2); // the lane moved on while item 1 waits
    release(7);
    await expect(first).resolves.toBe(7);
  });

  it('starts afresh after the lane emptied', async () => {
    const { batches, run } = recording();
    const commit = new GroupCommit(run, 64);
    await commit.submit('a', 1);
    await commit.submit('a', 2);
    expect(batches.map((b) => b.items)).toEqual([[1], [2]]);
  });

  it('fails a batch of reads as a whole (retryAlone: false): identical items would fail alike', async () => {
    const bad = new Error('relation does not exist');
    const { batches, run } = recording((items) => (items.length > 1 ? bad : undefined));
    const commit = new GroupCommit(run, 64, { retryAlone: false });
    const settled = await Promise.allSettled([1, 2, 3].map((n) => commit.submit('a', n)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(batches).toHaveLength(2);
  });

  it('treats a runner that answers the wrong number of results as a failed batch, never leaving an item unsettled', async () => {
    const commit = new GroupCommit<number, number>(async () => [], 64);
    const settled = await Promise.allSettled([1, 2].map((n) => commit.submit('a', n)));
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((settled[0] as PromiseRejectedResult).reason.message).toMatch(/a batch of 1 gave 0 results/);
  });

  it('refuses a max below one', () => {
    expect(() => new GroupCommit(async () => [], 0)).toThrow(RangeError);
  });
});

describe('sharedReads (identical reads share one run)', () => {
  it('runs the read once for the callers that waited, gives each its own copy, and fails them together', async () => {
    const runs: string[][] = [];
    const reads = sharedReads(
      async (query: string) => {
        runs.push([query]);
        await new Promise((resolve) => setImmediate(resolve));
        if (query === 'bad') throw new Error('read failed');
        return [query];
      },
      (rows) => rows.slice(),
      1024,
    );
    const answers = await Promise.all([1, 2, 3].map(() => reads.submit('q', 'q')));
    expect(runs).toEqual([['q'], ['q']]); // the first alone, then the two that waited
    expect(answers).toEqual([['q'], ['q'], ['q']]);
    expect(answers[1]).not.toBe(answers[2]);
    const failed = await Promise.allSettled([1, 2, 3].map(() => reads.submit('bad', 'bad')));
    expect(failed.every((r) => r.status === 'rejected')).toBe(true);
    expect(runs).toHaveLength(4); // failed as a batch, not retried one by one
  });
});

describe('GroupCommit in a trace (the restap.group_commit event)', () => {
  const { exporter } = useInMemoryTracing();

  it('marks the span of each item that waited for a batch in flight, with the size of the batch it ran in; an item that ran at once alone gets none', async () => {
    const { run } = recording();
    const commit = new GroupCommit(run, 64);
    const tracer = trace.getTracer('group-commit.spec');
    const spans = [1, 2, 3].map((n) => tracer.startSpan(`item ${n}`));
    await Promise.all(spans.map((span, k) => context.with(trace.setSpan(context.active(), span), () => commit.submit('a', k + 1))));
    spans.forEach((span) => span.end());
    const events = exporter.getFinishedSpans().map((s) => [s.name, s.events.map((e) => [e.name, e.attributes])]);
    expect(events).toEqual([
      ['item 1', []],
      ['item 2', [['restap.group_commit', { 'restap.group_commit.batch_size': 2 }]]],
      ['item 3', [['restap.group_commit', { 'restap.group_commit.batch_size': 2 }]]],
    ]);
  });
});
