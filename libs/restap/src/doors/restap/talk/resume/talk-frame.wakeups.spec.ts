import { NewsWakeups } from '../../../../core/news/news-wakeups';
import type { ResolvedRestapCoreOptions } from '../../../../interfaces/restap-options.interface';
import { TalkFrameWakeups } from './talk-frame.wakeups';

const POLL_MS = 300;

/** NewsWakeups without a database (no LISTEN connection), its `listening` set by the test. */
function wakeupsOf(listening: boolean): { frames: TalkFrameWakeups; resync(): void } {
  const options = { talk: { enabled: true, resume: { pollMs: POLL_MS } }, news: { enabled: false, wakeups: 'in-process', resyncMs: 60_000 } } as unknown as ResolvedRestapCoreOptions;
  const wakeups = new NewsWakeups(options);
  Object.defineProperty(wakeups, 'listening', { get: () => listening });
  const resyncs = new Set<() => void>();
  jest.spyOn(wakeups, 'onResync').mockImplementation((listener) => (resyncs.add(listener), () => resyncs.delete(listener)));
  const frames = new TalkFrameWakeups(options, wakeups);
  frames.onModuleInit();
  return { frames, resync: () => resyncs.forEach((listener) => listener()) };
}

const outcome = <T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('TalkFrameWakeups (issue 38, item 5)', () => {
  it("a follower wakes (true) at its turn's frames, not at another turn's nor at a stop request", async () => {
    const { frames } = wakeupsOf(true);
    const stops: string[] = [];
    frames.onStopAsked((id) => stops.push(id));
    const next = frames.next('msg_a', 10_000);
    frames.written('msg_b');
    frames.stopAsked('msg_a');
    expect(await outcome(next, 50)).toBe('pending');
    expect(stops).toEqual(['msg_a']);
    frames.written('msg_a');
    expect(await outcome(next, 50)).toBe(true);
  });

  it('while LISTEN is in place only a resync wakes it without frames; timeoutMs and an abort resolve false', async () => {
    const { frames, resync } = wakeupsOf(true);
    const next = frames.next('msg_a', 10_000);
    expect(await outcome(next, POLL_MS + 100)).toBe('pending');
    resync();
    expect(await outcome(next, 50)).toBe(true);
    expect(await frames.next('msg_a', 20)).toBe(false);
    const stop = new AbortController();
    const aborted = frames.next('msg_a', 10_000, stop.signal);
    stop.abort();
    expect(await outcome(aborted, 50)).toBe(false);
  });

  it('without a LISTEN connection a follower re-reads every pollMs', async () => {
    const { frames } = wakeupsOf(false);
    const started = Date.now();
    expect(await frames.next('msg_a', 10_000)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(POLL_MS - 10);
  });
});
