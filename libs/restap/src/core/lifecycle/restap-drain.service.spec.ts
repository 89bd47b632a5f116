import { Logger } from '@nestjs/common';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import { RestapDrain } from './restap-drain.service';

const drainWith = (shutdownGraceMs: number): RestapDrain => new RestapDrain({ shutdownGraceMs } as ResolvedRestapCoreOptions);

/** A followed turn that ends when stopped, as a /talk turn does (its `done` once it has answered). */
function turn(drain: RestapDrain, endsWhenStopped = true): { stopped: () => boolean; done: () => void } {
  let stopped = false;
  const done = drain.track({
    stop: () => {
      stopped = true;
      if (endsWhenStopped) setImmediate(done);
    },
  });
  return { stopped: () => stopped, done };
}

describe('RestapDrain: shutdown waits for the open /talk turns, then stops them', () => {
  beforeAll(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterAll(() => jest.restoreAllMocks());

  it('returns at once when no turn is open, and turns that ended are no longer followed', async () => {
    const drain = drainWith(10_000);
    const a = turn(drain);
    const b = turn(drain);
    b.done();
    a.done();
    const started = Date.now();
    await drain.beforeApplicationShutdown();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(a.stopped() || b.stopped()).toBe(false);
  });

  it('lets turns that end within the grace period end by themselves, and stops only those still open after it', async () => {
    const drain = drainWith(100);
    const early = turn(drain);
    const late = [turn(drain), turn(drain), turn(drain)];
    const middle = turn(drain);
    setTimeout(() => (early.done(), middle.done()), 10);
    await drain.beforeApplicationShutdown();
    expect(early.stopped()).toBe(false);
    expect(middle.stopped()).toBe(false);
    expect(late.map((t) => t.stopped())).toEqual([true, true, true]);
    expect(drain.isDraining()).toBe(true);
  });

  it('counts a turn once however often its done is called', async () => {
    const drain = drainWith(50);
    const first = turn(drain);
    const second = turn(drain);
    first.done();
    first.done();
    await drain.beforeApplicationShutdown();
    expect(second.stopped()).toBe(true);
  });

  it('stops a turn that starts while draining at once', async () => {
    const drain = drainWith(10_000);
    await drain.beforeApplicationShutdown();
    const late = turn(drain, false);
    expect(late.stopped()).toBe(true);
    late.done();
  });
});
