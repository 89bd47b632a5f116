import { Logger } from '@nestjs/common';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';
import type { RestapSql, RestapStatement } from '../../persistence/restap-sql';
import type { SessionStore } from '../../persistence/session.store';
import { RestapDrain } from './restap-drain.service';
import { RestapReplicas } from './restap-replicas.service';

const options = { replicas: { heartbeatMs: 1_000, orphanAfterMs: 5_000 }, shutdownGraceMs: 1_000 } as ResolvedRestapCoreOptions;

/** A RestapSql that records statement purposes and fails while `down` is set. */
function fakeSql() {
  const sent: string[] = [];
  const state = { down: false };
  const sql = {
    query: async (stmt: RestapStatement) => {
      if (state.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      sent.push(stmt.purpose);
      return [];
    },
  } as unknown as RestapSql;
  return { sql, sent, state };
}

describe('RestapReplicas (issue 32, items 9 and 15): heartbeats, and sweeps only while its own heartbeats are regular', () => {
  beforeAll(() => jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined));
  afterAll(() => jest.restoreAllMocks());
  afterEach(() => jest.useRealTimers());

  it('beats at bootstrap (before serving), then beats and sweeps on each tick; never sweeps right after an outage', async () => {
    jest.useFakeTimers();
    const { sql, sent, state } = fakeSql();
    const swept: string[] = [];
    const store = { interruptOrphans: async (self: string) => (swept.push(self), 0) } as unknown as SessionStore;
    const drain = new RestapDrain(options);
    const replicas = new RestapReplicas(sql, options, store, drain);
    const tasks: string[] = [];
    replicas.registerSweeper('a2a.tasks', async (self) => (tasks.push(self), 0));
    await replicas.onApplicationBootstrap();
    expect(sent).toEqual(['replicas.heartbeat']);

    await jest.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual(['replicas.heartbeat', 'replicas.heartbeat', 'replicas.prune']);
    expect([swept, tasks]).toEqual([[replicas.id], [replicas.id]]);

    // The database goes away for a while: ticks fail, nothing is swept.
    state.down = true;
    await jest.advanceTimersByTimeAsync(5_000);
    state.down = false;
    sent.length = 0;
    // Back: the first tick only beats (the others' heartbeats were held up by the same outage) …
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual(['replicas.heartbeat']);
    // … the next one sweeps again.
    await jest.advanceTimersByTimeAsync(1_000);
    expect(sent).toEqual(['replicas.heartbeat', 'replicas.heartbeat', 'replicas.prune']);

    // Graceful shutdown: at the end of the drain the heartbeat stops and the row goes.
    sent.length = 0;
    await drain.beforeApplicationShutdown();
    expect(sent).toEqual(['replicas.forget']);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(sent).toEqual(['replicas.forget']);
  });

  it('isLive: itself without a statement; another instance by its heartbeat', async () => {
    const { sql, sent } = fakeSql();
    const replicas = new RestapReplicas(sql, options, {} as SessionStore, new RestapDrain(options));
    expect(await replicas.isLive(replicas.id)).toBe(true);
    expect(sent).toEqual([]);
    expect(await replicas.isLive('another')).toBe(false);
    expect(sent).toEqual(['replicas.is-live']);
  });
});
