import { NewsWakeups } from '../news/news-wakeups';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { RestapRegistry } from '../registry/restap.registry';
import type { RestapExplorer } from '../registry/restap.explorer';
import { CapabilityTaskWakeups, TASK_FALLBACK_POLL_MS } from './capability-task.wakeups';

/** NewsWakeups without a database (no LISTEN connection), its `listening` set by the test. */
function wakeupsOf(listening: boolean, taskCapability = true): { wakeups: NewsWakeups; tasks: CapabilityTaskWakeups; resync(): void } {
  const options = { news: { enabled: false, wakeups: 'in-process', resyncMs: 60_000 } } as unknown as ResolvedRestapCoreOptions;
  const wakeups = new NewsWakeups(options);
  Object.defineProperty(wakeups, 'listening', { get: () => listening });
  const resyncs = new Set<() => void>();
  jest.spyOn(wakeups, 'onResync').mockImplementation((listener) => (resyncs.add(listener), () => resyncs.delete(listener)));
  const registry = { getCapabilities: () => [{ options: { id: 'jobs.slow', task: taskCapability } }] } as unknown as RestapRegistry;
  const tasks = new CapabilityTaskWakeups(wakeups, registry, {} as RestapExplorer);
  tasks.onModuleInit();
  return { wakeups, tasks, resync: () => resyncs.forEach((listener) => listener()) };
}

const settled = async (promise: Promise<void>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe('CapabilityTaskWakeups (issue 38, item 5)', () => {
  it("a wait on a task resolves at that task's end, not at another task's, nor at a cancel request", async () => {
    const { tasks } = wakeupsOf(true);
    const mine = tasks.changed('task-1');
    tasks.written('task-2');
    tasks.cancelRequested('task-1');
    expect(await settled(mine, 50)).toBe(false);
    tasks.written('task-1');
    expect(await settled(mine, 50)).toBe(true);
  });

  it('while LISTEN is in place no timer runs: a wait resolves at a resync (a lost NOTIFY is covered by it)', async () => {
    const { tasks, resync } = wakeupsOf(true);
    const wait = tasks.changed('task-1');
    expect(await settled(wait, TASK_FALLBACK_POLL_MS + 100)).toBe(false);
    resync();
    expect(await settled(wait, 50)).toBe(true);
  });

  it(`without a LISTEN connection a wait falls back to a re-read after ${TASK_FALLBACK_POLL_MS} ms`, async () => {
    const { tasks } = wakeupsOf(false);
    const started = Date.now();
    await tasks.changed('task-1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(TASK_FALLBACK_POLL_MS - 10);
  });

  it('cancel requests reach their listeners with the task id; an aborted wait resolves at once', async () => {
    const { tasks } = wakeupsOf(true);
    const cancels: string[] = [];
    tasks.onCancelRequested((id) => cancels.push(id));
    tasks.cancelRequested('a task: 1');
    expect(cancels).toEqual(['a task: 1']);
    const stop = new AbortController();
    const wait = tasks.changed('a task: 1', stop.signal);
    stop.abort();
    expect(await settled(wait, 50)).toBe(true);
  });

  it('an app without a task capability registers no channel (its LISTEN connection is not opened for it)', () => {
    const { wakeups, tasks } = wakeupsOf(true, false);
    const topic = jest.spyOn(wakeups, 'topic');
    tasks.onModuleInit();
    expect(topic).not.toHaveBeenCalled();
    expect(tasks.listening).toBe(false);
  });
});
