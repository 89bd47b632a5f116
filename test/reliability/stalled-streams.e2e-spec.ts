import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import type { TalkContext, TalkTurn } from 'nestjs-restap';
import { createTestDatabase, usingServer, type TestDatabase } from '../support/test-database';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { openTalkStream, eventsOnly, postTalk } from '../fixtures/talk-sse';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';
import { openStalledTalk, type StalledTalk } from './support/stalled-sse';
import { startChildAgent, type ChildAgent } from './support/child-agent';

// Issue 32, item 8 — stalled consumers beat the timeouts and the drain. An SSE client that stops
// reading (without closing) used to hold its turn: past talk.timeoutMs the turn neither ended nor
// was stored until the reader resumed, and on SIGTERM the process waited for it past the grace.
// Backpressure must not suspend timers or the drain: end the turn, store it, drop the slow socket.
jest.setTimeout(120_000);

const CHUNK = 'x'.repeat(64 * 1024);

/** A reply far larger than the kernel's socket buffers, produced as fast as it is taken, until the turn stops. */
async function* flood(signal: AbortSignal): AsyncGenerator<string> {
  for (let i = 0; i < 2_000 && !signal.aborted; i++) yield CHUNK;
}

/** Open connections on the app's HTTP server. */
const connections = (app: ReliabilityApp): Promise<number> =>
  new Promise((resolve, reject) => app.app.getHttpServer().getConnections((error: Error | null, n: number) => (error ? reject(error) : resolve(n))));

describe('issue 32, item 8 — a stalled SSE consumer neither outlives talk.timeoutMs nor delays shutdown', () => {
  let db: TestDatabase;
  const apps: ReliabilityApp[] = [];
  const sockets: StalledTalk[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const stalled of sockets) stalled.socket.destroy();
    for (const app of apps) await app.close().catch(() => undefined);
    await db?.drop();
  });

  describe('(a) past talk.timeoutMs', () => {
    const TIMEOUT_MS = 1_500;
    const HEARTBEAT_MS = 500;
    let app: ReliabilityApp;
    let history: readonly TalkTurn[] = [];
    let aborted: number | undefined;
    beforeAll(async () => {
      app = await startReliabilityApp(db.target, { restap: { talk: { timeoutMs: TIMEOUT_MS, heartbeatMs: HEARTBEAT_MS } } });
      apps.push(app);
      app.brain.behaviour = (ctx: TalkContext) => {
        if (ctx.message !== 'flood') {
          history = ctx.history;
          return 'next';
        }
        ctx.signal.addEventListener('abort', () => (aborted = Date.now()));
        return flood(ctx.signal);
      };
    });

    it('the turn ends at the deadline and is stored (status error, with the text produced) while the client still does not read, and its socket is dropped', async () => {
      const opened = Date.now();
      const stalled = await openStalledTalk(app.url, 'flood');
      sockets.push(stalled);
      // The deadline, plus one heartbeat interval for the stalled socket to take the closing frames.
      await sleep(TIMEOUT_MS + HEARTBEAT_MS + 1_500);
      expect(aborted).toBeDefined();
      expect((aborted ?? 0) - opened).toBeLessThan(TIMEOUT_MS + 1_000);
      expect(await connections(app)).toBe(0);

      const next = await postTalk(`${app.url}/talk`, { message: 'after', session_id: stalled.start.session_id });
      expect(next.status).toBe(200);
      expect(history.map((turn) => `${turn.role}:${turn.status}`)).toEqual(['user:complete', 'assistant:error']);
      expect(history[0].content).toBe('flood');
      expect(history[1].content.startsWith(CHUNK.slice(0, 1000))).toBe(true);
    });

    it('a client that reads on is not cut: every frame of a long reply arrives, then message.end and done', async () => {
      app.brain.behaviour = () => (async function* () {
        for (let i = 0; i < 160; i++) yield CHUNK; // 10 MB: the socket fills and drains many times
      })();
      const stream = await openTalkStream(`${app.url}/talk`, { message: 'long' });
      const frames = eventsOnly(await stream.rest());
      expect(frames.map((f) => f.event).slice(-2)).toEqual(['message.end', 'done']);
      expect(frames.filter((f) => f.event === 'message.delta')).toHaveLength(160);
    });
  });

  describe('(b) SIGTERM with a stalled stream (the sample in its own process)', () => {
    const GRACE_MS = 1_000;
    let llm: FakeLlm;
    let agent: ChildAgent | undefined;
    beforeAll(async () => {
      // 32 MB of reply in 64 KB deltas, as fast as the agent takes them: far more than the socket buffers hold.
      llm = await startFakeLlm({ reply: CHUNK.repeat(512), split: (reply) => reply.match(/[\s\S]{1,65536}/g) ?? [] });
    });
    afterAll(async () => {
      agent?.kill();
      await llm?.close();
    });

    it('the process exits within the grace (plus the stop wait), exit code 0, and the stalled turn is stored as error', async () => {
      agent = await startChildAgent({
        ...(db.url ? { DATABASE_URL: db.url } : { RESTAP_DATA_DIR: 'memory://' }),
        LLM_BASE_URL: llm.baseUrl,
        LLM_MODEL: 'fake-model',
        RESTAP_SHUTDOWN_GRACE_MS: String(GRACE_MS),
        RESTAP_RATE_LIMIT: '0',
      });
      const stalled = await openStalledTalk(agent.url, 'flood me');
      sockets.push(stalled);
      await sleep(1_500); // the agent's writes to the stalled socket now wait

      const signalled = Date.now();
      agent.process.kill('SIGTERM');
      const { code, signal } = await agent.exited(GRACE_MS + 10_000);
      const exitedAfter = Date.now() - signalled;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(exitedAfter).toBeLessThan(GRACE_MS + 3_000);
      expect(agent.output()).toMatch(/ending 1 \/talk turn\(s\) still open/);

      if (usingServer()) {
        const client = new Client({ connectionString: db.url });
        await client.connect();
        try {
          const keyHash = createHash('sha256').update(String(stalled.start.session_id), 'utf8').digest();
          const rows = await client.query(`SELECT t.role, t.status FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 ORDER BY t.id`, [keyHash]);
          expect(rows.rows.map((r: { role: string; status: string }) => `${r.role}:${r.status}`)).toEqual(['user:complete', 'assistant:error']);
        } finally {
          await client.end();
        }
      }
    });
  });
});
