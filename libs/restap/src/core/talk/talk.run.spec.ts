import { setTimeout as sleep } from 'node:timers/promises';
import { NEVER, Observable } from 'rxjs';
import { TalkRun } from './talk.run';

describe('TalkRun: one handler invocation with its signal and deadline', () => {
  it('collects text and hands every chunk to the transport, in order', async () => {
    const seen: string[] = [];
    const outcome = await new TalkRun(1000).pump(
      () => (async function* () { yield 'a'; yield { event: 'status', message: 's' }; yield 'b'; })(),
      (chunk) => void seen.push(chunk.event),
    );
    expect(outcome).toEqual({ status: 'complete', text: 'ab' });
    expect(seen).toEqual(['message.delta', 'status', 'message.delta']);
  });

  it('a reply returned whole as a string is one chunk; an empty one is none', async () => {
    const seen: unknown[] = [];
    expect(await new TalkRun(1000).pump(() => 'whole', (chunk) => void seen.push(chunk))).toEqual({ status: 'complete', text: 'whole' });
    expect(seen).toEqual([{ event: 'message.delta', text: 'whole' }]);
    expect(await new TalkRun(1000).pump(() => '', (chunk) => void seen.push(chunk))).toEqual({ status: 'complete', text: '' });
    expect(seen).toHaveLength(1);
  });

  it('a whole string whose hand-over waits past timeoutMs ends as a timeout; one whose hand-over fails, as an error', async () => {
    const slow = new TalkRun(30);
    expect(await slow.pump(() => 'late', () => sleep(120))).toMatchObject({ status: 'error', text: 'late', stopped: 'timeout' });
    expect(slow.signal.reason).toMatchObject({ name: 'TimeoutError' });
    const failing = await new TalkRun(1000).pump(() => 'lost', () => Promise.reject(new Error('socket gone')));
    expect(failing).toMatchObject({ status: 'error', text: 'lost' });
    expect((failing.error as Error).message).toBe('socket gone');
  });

  it('a handler error becomes an error outcome with the text so far', async () => {
    const outcome = await new TalkRun(1000).pump(
      () => (async function* () { yield 'part'; throw new Error('boom'); })(),
      () => undefined,
    );
    expect(outcome.status).toBe('error');
    expect(outcome.text).toBe('part');
    expect((outcome.error as Error).message).toBe('boom');
  });

  it('a synchronous throw is an error outcome too', async () => {
    const outcome = await new TalkRun(1000).pump(() => {
      throw new Error('sync');
    }, () => undefined);
    expect(outcome).toMatchObject({ status: 'error', text: '' });
  });

  it('stop("disconnect") fires the signal with an AbortError and stops waiting at once', async () => {
    const run = new TalkRun(10_000);
    let unsubscribed = false;
    const pumping = run.pump(() => new Observable<string>(() => () => (unsubscribed = true)), () => undefined);
    await sleep(10);
    const started = Date.now();
    run.stop('disconnect');
    expect(await pumping).toEqual({ status: 'aborted', text: '', stopped: 'disconnect' });
    expect(Date.now() - started).toBeLessThan(100);
    expect(run.signal.aborted).toBe(true);
    expect(run.signal.reason).toMatchObject({ name: 'AbortError' });
    expect(unsubscribed).toBe(true);
  });

  it('past timeoutMs the turn ends as an error with a TimeoutError on the signal', async () => {
    const run = new TalkRun(50);
    const outcome = await run.pump(() => NEVER, () => undefined);
    expect(outcome).toMatchObject({ status: 'error', stopped: 'timeout' });
    expect(run.signal.reason).toMatchObject({ name: 'TimeoutError' });
  });

  describe('issue 32, item 8 — backpressure never suspends the deadline or the drain', () => {
    const endless = (): AsyncGenerator<string> => (async function* () { for (;;) yield 'x'; })();
    const stalled = (): Promise<void> => new Promise<void>(() => undefined); // a client that never reads again

    it('a transport stuck waiting on its client ends the turn at timeoutMs, as an error with the text so far', async () => {
      const run = new TalkRun(80);
      const started = Date.now();
      let handed = 0;
      const outcome = await run.pump(endless, () => (++handed < 3 ? undefined : stalled()));
      expect(outcome).toMatchObject({ status: 'error', text: 'xxx', stopped: 'timeout' });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(run.signal.reason).toMatchObject({ name: 'TimeoutError' });
    });

    it('a whole-string reply whose hand-over never completes ends at timeoutMs too', async () => {
      const started = Date.now();
      expect(await new TalkRun(60).pump(() => 'whole', stalled)).toMatchObject({ status: 'error', text: 'whole', stopped: 'timeout' });
      expect(Date.now() - started).toBeLessThan(1000);
    });

    it('stop("shutdown") ends a turn whose transport is waiting, at once', async () => {
      const run = new TalkRun(60_000);
      const pumping = run.pump(endless, stalled);
      await sleep(20);
      const stopped = Date.now();
      run.stop('shutdown');
      expect(await pumping).toMatchObject({ status: 'error', text: 'x', stopped: 'shutdown' });
      expect(Date.now() - stopped).toBeLessThan(100);
    });

    it('a transport that does not wait hands back nothing, and every chunk still arrives in order', async () => {
      const seen: string[] = [];
      const outcome = await new TalkRun(1000).pump(() => (async function* () { yield 'a'; yield 'b'; yield 'c'; })(), (chunk) => {
        seen.push(chunk.event === 'message.delta' ? chunk.text : chunk.event);
        return seen.length === 2 ? sleep(5) : undefined;
      });
      expect([outcome, seen]).toEqual([{ status: 'complete', text: 'abc' }, ['a', 'b', 'c']]);
    });
  });

  it('a turn stopped before the handler runs never invokes it', async () => {
    const run = new TalkRun(1000);
    run.stop('disconnect');
    const invoke = jest.fn(() => 'x');
    expect((await run.pump(invoke, () => undefined)).status).toBe('aborted');
    expect(invoke).not.toHaveBeenCalled();
  });
});
