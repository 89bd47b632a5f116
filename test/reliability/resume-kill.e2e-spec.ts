import { createHash } from 'node:crypto';
import { createParser } from 'eventsource-parser';
import { Client } from 'pg';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { startChildAgent, type ChildAgent } from './support/child-agent';

// Issue 37 (tests) with issue 32's sweep: the replica running a resumable /talk turn is the sample in a
// child process, killed with SIGKILL mid-reply; a resume on the surviving replica B (in this process)
// ends with `error agent_interrupted` + `done` as soon as the replicas sweep finds A's heartbeat stale,
// long before the turn's own deadline (talk.timeoutMs, 120 s here). Heartbeats every 200 ms, orphan window 1.5 s.
jest.setTimeout(180_000);

const HEARTBEAT_MS = 200;
const ORPHAN_MS = 1_500;
const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const sha = (id: string): Buffer => createHash('sha256').update(id, 'utf8').digest();

interface Frame {
  id?: string;
  event?: string;
  data: string;
}

/** An SSE response read frame by frame (event, id, data). */
async function openSse(url: string, init: RequestInit): Promise<{ status: number; next(): Promise<Frame | undefined>; rest(): Promise<Frame[]>; drop(): void }> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, headers: { accept: 'text/event-stream', ...(init.headers as Record<string, string>) }, signal: controller.signal });
  const queue: Frame[] = [];
  let ended = false;
  const parser = createParser({ onEvent: (e) => queue.push({ id: e.id, event: e.event, data: e.data }) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const next = async (): Promise<Frame | undefined> => {
    while (!queue.length && !ended) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) ended = true;
      else parser.feed(value);
    }
    return queue.shift();
  };
  return {
    status: response.status,
    next,
    rest: async () => {
      const frames: Frame[] = [];
      for (let f = await next(); f; f = await next()) frames.push(f);
      return frames;
    },
    drop: () => controller.abort(),
  };
}

describe('issue 37 (tests): kill -9 of the replica running a resumable /talk turn', () => {
  let shared: ReplicaDatabase | undefined;
  let sql: Client;
  let llm: FakeLlm;
  let b: RunningApp;
  let a: ChildAgent | undefined;

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    // ~40 s of reply (400 words, 100 ms apart): A is killed long before it ends.
    llm = await startFakeLlm({ reply: words(400), chunkDelayMs: 100 });
    b = await startSample({ url: shared.url }, {
      llm: { baseUrl: llm.baseUrl, model: 'fake-model' }, rateLimitPerMinute: 100_000, replicaHeartbeatMs: HEARTBEAT_MS, orphanAfterMs: ORPHAN_MS, playground: false, resume: true,
    });
    sql = new Client({ connectionString: shared.url });
    await sql.connect();
  });
  afterAll(async () => {
    a?.kill();
    await sql?.end();
    await b?.close();
    await llm?.close();
    await shared?.close();
  });

  it('a resume on the surviving replica ends with error agent_interrupted + done once A\'s heartbeat is stale (not at the turn deadline), and the reply is stored interrupted (issue 32 sweep)', async () => {
    a = await startChildAgent({
      DATABASE_URL: shared!.url,
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'fake-model',
      RESTAP_RATE_LIMIT: '0',
      RESTAP_PLAYGROUND: '0',
      RESTAP_TALK_RESUME: '1',
      RESTAP_REPLICA_HEARTBEAT_MS: String(HEARTBEAT_MS),
      RESTAP_ORPHAN_AFTER_MS: String(ORPHAN_MS),
    });
    const live = await openSse(`${a.url}/talk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'talk long' }) });
    expect(live.status).toBe(200);
    const start = await live.next();
    expect(start?.event).toBe('message.start');
    const { id: messageId, session_id: sessionId } = JSON.parse(start!.data) as { id: string; session_id: string };
    let last = start!;
    for (let deltas = 0; deltas < 5; ) {
      last = (await live.next())!;
      if (last.event === 'message.delta') deltas++;
    }
    // The turn runs on A, stored open with A as its runner.
    const replyRow = async (): Promise<{ status: string; runner: string | null } | undefined> =>
      (await sql.query(`SELECT t.status, t.runner FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 AND t.message_id = $2 AND t.role = 'assistant'`, [sha(sessionId), messageId])).rows[0];
    for (let i = 0; i < 100 && (await replyRow())?.status !== 'open'; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await replyRow())?.status).toBe('open');

    // B follows the turn from the last frame the client saw.
    const resumed = await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId, 'Last-Event-ID': last.id! } });
    expect(resumed.status).toBe(200);
    const first = await resumed.next();
    expect(Number(first?.id)).toBe(Number(last.id) + 1);

    const killed = Date.now();
    a.process.kill('SIGKILL');
    expect(await a.exited(5_000)).toEqual({ code: null, signal: 'SIGKILL' });
    live.drop();

    const rest = [first!, ...(await resumed.rest())];
    const endedAfter = Date.now() - killed;
    // No frame twice, none skipped, then the interruption and done.
    const ids = rest.filter((f) => f.event !== 'done').map((f) => Number(f.id));
    expect(ids).toEqual(ids.map((_, i) => Number(last.id) + 1 + i));
    expect(rest.slice(-2).map((f) => f.event)).toEqual(['error', 'done']);
    expect(JSON.parse(rest.at(-2)!.data)).toMatchObject({ event: 'error', error: 'agent_interrupted' });
    expect(rest.filter((f) => f.event === 'message.end')).toEqual([]);
    // The heartbeat, not the 120 s turn deadline: A is found dead after orphanAfterMs, then one check (≤ 1 s) and a poll.
    expect(endedAfter).toBeGreaterThanOrEqual(ORPHAN_MS - HEARTBEAT_MS);
    expect(endedAfter).toBeLessThan(ORPHAN_MS + 6_000);
    expect(await replyRow()).toEqual({ status: 'interrupted', runner: null });

    // A later resume (from the start) of the dead turn replays what was kept and ends the same way at once.
    const again = Date.now();
    const replay = await (await openSse(`${b.url}/talk/${messageId}`, { method: 'GET', headers: { 'Restap-Session-Id': sessionId } })).rest();
    expect(Date.now() - again).toBeLessThan(3_000);
    expect(replay[0].event).toBe('message.start');
    expect(replay.slice(-2).map((f) => f.event)).toEqual(['error', 'done']);
    expect(JSON.parse(replay.at(-2)!.data)).toMatchObject({ error: 'agent_interrupted' });
  });
});
