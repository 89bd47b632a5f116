import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { startSample, type RunningApp } from '../support/sample-app';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';
import { postNews, readAll } from '../fixtures/news-http';
import { rawRequest, type RawRequest } from './support/raw-http';
import { createTempPostgres, tempPostgresAvailable, type TempPostgres } from '../support/temp-postgres';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';
import { CapturingLogger } from '../fixtures/talk-app';

// Issue 6, item 2 — storage faults, on a PostgreSQL server the test starts itself (initdb into a
// temp folder, free port): stopped mid-traffic, restarted, kill -9'd after acknowledgements.
jest.setTimeout(180_000);

/** Longest a request may take while the database is down (the sample's bounds are 2 s / 5 s / 6 s). */
const BOUND_MS = 5000;
const describeIfPg = tempPostgresAvailable() ? describe : describe.skip;

/**
 * What the apps log while their PostgreSQL server is stopped, killed or restarting: failed
 * statements, and the 503 of /health/ready (terminus) passing through the sample's error filter.
 */
const EXPECTED_FAULT_LOG = /ECONNREFUSED|Connection terminated|terminating connection|the database system is (starting up|shutting down|in recovery mode)|server closed the connection|timeout|^ServiceUnavailableException: Service Unavailable Exception/i;

/** A writer that posts uniquely tagged items until stopped, keeping every answer. */
function newsTraffic(url: string, workers: number): { stop(): Promise<void>; acked: Map<string, string>; statuses: Map<string, number> } {
  const acked = new Map<string, string>(); // tag → news_id, only for 2xx
  const statuses = new Map<string, number>();
  let running = true;
  let n = 0;
  const loops = Array.from({ length: workers }, async (_, w) => {
    while (running) {
      const tag = `w${w}-${n++}`;
      const answer = await postNews(url, { type: 'fault.test', message: tag }).catch(() => undefined);
      const key = answer ? `${answer.status} ${answer.json?.error ?? ''}`.trim() : 'no answer';
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (answer?.status === 200) acked.set(tag, String(answer.json.news_id));
      else await new Promise((r) => setTimeout(r, 20));
    }
  });
  return { acked, statuses, stop: async () => void ((running = false), await Promise.all(loops)) };
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    if (Date.now() - started > timeoutMs) throw new Error(`not recovered within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}

describeIfPg('issue 6, item 2 — storage faults (PostgreSQL of the test\'s own)', () => {
  let pg: TempPostgres;
  let agent: RunningApp;
  let fixture: ReliabilityApp;
  // The faults below make the apps log errors on purpose: captured (not printed), then checked.
  const logged = new CapturingLogger();

  beforeAll(async () => {
    pg = await createTempPostgres();
    agent = await startSample({ url: pg.url }, { bench: true }, logged);
    fixture = await startReliabilityApp({ url: pg.url }, { restap: { news: false }, logger: logged });
  });
  afterAll(async () => {
    try {
      pg?.start();
    } catch {
      // already running
    }
    await agent?.close();
    await fixture?.close();
    pg?.destroy();
  });

  it('stopped mid-traffic: /talk and /news answer 503 storage_unavailable with Retry-After in bounded time, discovery and liveness answer, readiness is 503; restarted: recovers by itself; every acknowledged item is there', async () => {
    const traffic = newsTraffic(agent.url, 4);
    await new Promise((r) => setTimeout(r, 500));
    pg.stop();

    const requests: RawRequest[] = [
      { method: 'POST', path: '/talk', headers: { 'Content-Type': 'application/json' }, body: '{"message":"hi"}' },
      { method: 'POST', path: '/talk', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: '{"message":"hi"}' },
      { method: 'GET', path: '/news' },
      { method: 'POST', path: '/news', headers: { 'Content-Type': 'application/json' }, body: '{"type":"t"}' },
    ];
    for (const req of requests) {
      const answer = await rawRequest(agent.url, req);
      expect({ req: `${req.method} ${req.path}`, status: answer.status, body: JSON.parse(answer.text), retryAfter: answer.headers['retry-after'] }).toEqual({
        req: `${req.method} ${req.path}`, status: 503, body: { error: 'storage_unavailable', message: expect.any(String) }, retryAfter: '1',
      });
      expect(answer.ms).toBeLessThan(BOUND_MS);
    }
    expect((await fetch(`${agent.url}/.well-known/restap.json`)).status).toBe(200);
    expect((await fetch(`${agent.url}/health/live`)).status).toBe(200);
    expect((await fetch(`${agent.url}/health/ready`)).status).toBe(503);

    pg.start();
    const recoveredIn = await eventually(async () => (await postNews(agent.url, { type: 'probe' })).status === 200, 20_000);
    expect(recoveredIn).toBeLessThan(20_000);
    expect((await fetch(`${agent.url}/health/ready`)).status).toBe(200);
    await traffic.stop();

    // Only 200s and 503 storage_unavailable were ever answered; every 200 is in the feed.
    expect([...traffic.statuses.keys()].filter((k) => k !== '200' && k !== '503 storage_unavailable')).toEqual([]);
    expect(traffic.statuses.get('503 storage_unavailable')).toBeGreaterThan(0);
    const stored = new Map((await readAll(agent.url)).map((item) => [String(item.message), item.news_id]));
    const missing = [...traffic.acked].filter(([tag, id]) => stored.get(tag) !== id);
    expect(missing).toEqual([]);
  });

  it('a stream whose turn cannot be stored ends with error then done; a JSON turn that cannot be stored is 503, never a 200', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fixture.brain.behaviour = async () => {
      await gate;
      return 'a reply nobody can store';
    };
    const stream = await openTalkStream(`${fixture.url}/talk`, { message: 'hi' });
    expect((await stream.next())?.event).toBe('message.start');
    pg.stop();
    release();
    const frames = eventsOnly(await stream.rest());
    expect(frames.map((f) => f.event).slice(-2)).toEqual(['error', 'done']);
    expect(frames.at(-2)?.data).toMatchObject({ error: 'storage_unavailable' });

    fixture.brain.behaviour = () => 'fine';
    const json = await postTalk(`${fixture.url}/talk`, { message: 'hi' });
    expect([json.status, (await json.json()).error]).toEqual([503, 'storage_unavailable']);
    pg.start();
    await eventually(async () => (await postTalk(`${fixture.url}/talk`, { message: 'hi' })).status === 200, 20_000);
  });

  it('issue 32, item 16 — a streamed reply that cannot be stored gets no message.end (the client must not take it for kept): deltas, then error storage_unavailable, then done; /health/ready\'s 503 says Retry-After', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    fixture.brain.behaviour = async function* () {
      yield 'a reply ';
      await gate;
      yield 'nobody can store';
    };
    const stream = await openTalkStream(`${fixture.url}/talk`, { message: 'hi' });
    const start = await stream.next();
    expect(start?.event).toBe('message.start');
    pg.stop();
    try {
      release();
      const frames = eventsOnly(await stream.rest());
      expect(frames.map((f) => f.event)).toEqual(['message.delta', 'message.delta', 'error', 'done']);
      expect(frames.map((f) => f.data?.text).join('')).toBe('a reply nobody can store');
      expect(frames[2].data).toMatchObject({ error: 'storage_unavailable' });
      expect(frames[3].data).toMatchObject({ session_id: start?.data?.session_id });

      const ready = await fetch(`${agent.url}/health/ready`);
      expect([ready.status, ready.headers.get('retry-after')]).toEqual([503, '1']);
    } finally {
      fixture.brain.behaviour = () => 'fine';
      pg.start();
    }
    await eventually(async () => (await postTalk(`${fixture.url}/talk`, { message: 'hi' })).status === 200, 20_000);
    const ready = await fetch(`${agent.url}/health/ready`);
    expect([ready.status, ready.headers.get('retry-after')]).toEqual([200, null]);
  });

  it('kill -9 of PostgreSQL right after acknowledgements: after it restarts, every acknowledged news item and talk turn is there', async () => {
    const acked: Array<{ tag: string; id: string }> = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 25; i++) {
          const tag = `kill9-${w}-${i}`;
          const answer = await postNews(agent.url, { type: 'kill9', message: tag });
          expect(answer.status).toBe(200);
          acked.push({ tag, id: String(answer.json.news_id) });
        }
      }),
    );
    const sessions: string[] = [];
    for (let i = 0; i < 10; i++) {
      const answer = await postTalk(`${agent.url}/talk`, { message: `turn ${i}` });
      expect(answer.status).toBe(200);
      sessions.push((await answer.json()).session_id);
    }
    pg.kill9();
    pg.start();
    await eventually(async () => (await fetch(`${agent.url}/health/ready`)).status === 200, 30_000);

    const stored = new Map((await readAll(agent.url)).map((item) => [String(item.message), item.news_id]));
    expect(acked.filter(({ tag, id }) => stored.get(tag) !== id)).toEqual([]);
    const client = new Client({ connectionString: pg.url });
    await client.connect();
    try {
      for (const sessionId of sessions) {
        const keyHash = createHash('sha256').update(sessionId, 'utf8').digest();
        const { rows } = await client.query(`SELECT t.role FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 ORDER BY t.id`, [keyHash]);
        expect(rows.map((r: { role: string }) => r.role)).toEqual(['user', 'assistant']);
      }
    } finally {
      await client.end();
    }
  });

  it('the errors logged during these faults are the database being unreachable, and nothing else', () => {
    expect(logged.errors.length).toBeGreaterThan(0);
    expect(logged.errors.filter((line) => !EXPECTED_FAULT_LOG.test(line))).toEqual([]);
  });

  it('synchronous_commit = off: startup warns loudly, or refuses with storage.requireSynchronousCommit', async () => {
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE postgres SET synchronous_commit = off`);
      await eventually(async () => {
        const fresh = new Client({ connectionString: pg.url });
        await fresh.connect();
        const { rows } = await fresh.query(`SHOW synchronous_commit`).finally(() => fresh.end());
        return rows[0].synchronous_commit === 'off';
      }, 10_000);
      const logger = new CapturingLogger();
      const warned = await startReliabilityApp({ url: pg.url }, { logger });
      await warned.close();
      expect(logger.lines.join('\n')).toMatch(/DURABILITY WARNING: PostgreSQL runs with synchronous_commit = off/);
      await expect(startReliabilityApp({ url: pg.url }, { restap: { storage: { requireSynchronousCommit: true } } })).rejects.toThrow(
        /synchronous_commit = off.*Refusing to start: storage.requireSynchronousCommit is set/,
      );
    } finally {
      await admin.query(`ALTER DATABASE postgres RESET synchronous_commit`);
      await admin.end();
    }
  });
});
