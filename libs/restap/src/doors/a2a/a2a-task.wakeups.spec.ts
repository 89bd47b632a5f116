import { NewsWakeups } from '../../core/news/news-wakeups';
import type { A2aDoorOptions } from './a2a.options';
import { A2aTaskWakeups, FALLBACK_POLL_MS } from './a2a-task.wakeups';

/** NewsWakeups without a database (no LISTEN connection), its `listening` set by the test. */
function wakeupsOf(listening: boolean): { wakeups: NewsWakeups; tasks: A2aTaskWakeups; resync(): void } {
  const options = { a2a: { enabled: true }, news: { enabled: false, wakeups: 'in-process', resyncMs: 60_000 } } as unknown as A2aDoorOptions;
  const wakeups = new NewsWakeups(options);
  Object.defineProperty(wakeups, 'listening', { get: () => listening });
  const resyncs = new Set<() => void>();
  jest.spyOn(wakeups, 'onResync').mockImplementation((listener) => (resyncs.add(listener), () => resyncs.delete(listener)));
  const tasks = new A2aTaskWakeups(wakeups, options);
  tasks.onModuleInit();
  return { wakeups, tasks, resync: () => resyncs.forEach((listener) => listener()) };
}

const settled = async (promise: Promise<void>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('A2aTaskWakeups (issue 38, item 5)', () => {
  it('a wait on a task resolves at that task\'s update, not at another task\'s', async () => {
    const { tasks } = wakeupsOf(true);
    const mine = tasks.changed('task-1');
    tasks.written('task-2');
    expect(await settled(mine, 50)).toBe(false);
    tasks.written('task-1');
    expect(await settled(mine, 50)).toBe(true);
  });

  it('while LISTEN is in place no timer runs: a wait resolves at a resync (a lost NOTIFY is covered by it)', async () => {
    const { tasks, resync } = wakeupsOf(true);
    const wait = tasks.changed('task-1');
    expect(await settled(wait, FALLBACK_POLL_MS + 100)).toBe(false);
    resync();
    expect(await settled(wait, 50)).toBe(true);
  });

  it(`without a LISTEN connection a wait falls back to a re-read after ${FALLBACK_POLL_MS} ms`, async () => {
    const { tasks } = wakeupsOf(false);
    const started = Date.now();
    await tasks.changed('task-1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(FALLBACK_POLL_MS - 10);
  });

  it('an aborted wait resolves at once and is let go; task ids with spaces or colons travel intact', async () => {
    const { tasks } = wakeupsOf(true);
    const stop = new AbortController();
    const wait = tasks.changed('a task: 1', stop.signal);
    stop.abort();
    expect(await settled(wait, 50)).toBe(true);
    const cancels: string[] = [];
    tasks.onCancelRequested((id) => cancels.push(id));
    tasks.cancelRequested('a task: 1');
    const next = tasks.changed('a task: 1');
    tasks.written('a task: 1');
    expect(await settled(next, 50)).toBe(true);
    expect(cancels).toEqual(['a task: 1']);
  });
});
