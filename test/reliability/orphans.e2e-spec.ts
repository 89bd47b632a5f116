import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { INTERRUPTED_NOTE } from 'nestjs-restap';
import { RestapReplicas } from '../../libs/restap/src/core/lifecycle/restap-replicas.service';
import { RestapSql, type RestapStatement } from '../../libs/restap/src/persistence/restap-sql';
import { INTERRUPTED_TASK_MESSAGE } from '../../libs/restap/src/doors/a2a/a2a-task.store';
import { messagesOf, startFakeLlm, type ChatRequestBody, type FakeLlm } from '../support/fake-llm';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { openTalkStream, postTalk, type SseFrame, type TalkStreamReader } from '../fixtures/talk-sse';
import { API_KEY, clientFor, collect, sendParams, text, userMessage, withKey } from '../a2a/a2a-support';
import { startChildAgent, type ChildAgent } from './support/child-agent';

// Issue 32, items 9 and 15 — work orphaned by a replica killed with -9. Replicas B and C are real Nest
// apps in this process; the runners that die (A) or shut down (D) are the sample in a child process of
// its own, SIGKILLed or SIGTERMed for real. All share one real PostgreSQL. Heartbeats every 200 ms,
// orphan window 1.5 s (defaults: 5 s and 30 s).
jest.setTimeout(180_000);

const HEARTBEAT_MS = 200;
const ORPHAN_MS = 1_500;
const AUTH = { authorization: `Bearer ${API_KEY}` };
const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const lastUser = (body: ChatRequestBody): string => [...messagesOf(body)].reverse().find((m) => m.role === 'user')?.content ?? '';
/** Replies to messages starting with "slow" take ~40 s (400 words, 100 ms apart), "medium" ~1 s; the others ~0.1 s. */
const REPLY = (body: ChatRequestBody): string => (lastUser(body).startsWith('slow') ? words(400) : lastUser(body).startsWith('medium') ? words(10) : `ok ${lastUser(body)}`);
const sha = (id: string): Buffer => createHash('sha256').update(id, 'utf8').digest();

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function nextEvent(stream: TalkStreamReader, event: string): Promise<SseFrame> {
  for (;;) {
    const frame = await stream.next();
    if (!frame) throw new Error(`stream ended before ${event}`);
    if (frame.event === event) return frame;
  }
}

describe('issue 32, items 9 and 15 — a replica killed with -9 leaves no turn open and no task working', () => {
  let shared: ReplicaDatabase | undefined;
  let url: string;
  let sql: Client;
  let llm: FakeLlm;
  let b: RunningApp;
  let c: RunningApp;
  const children: ChildAgent[] = [];

  const childEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: url,
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: 'fake-model',
    RESTAP_API_KEY: API_KEY,
    RESTAP_RATE_LIMIT: '0',
    RESTAP_PLAYGROUND: '0',
    RESTAP_REPLICA_HEARTBEAT_MS: String(HEARTBEAT_MS),
    RESTAP_ORPHAN_AFTER_MS: String(ORPHAN_MS),
    ...extra,
  });
  const turnsOf = async (sessionId: string): Promise<string[]> => {
    const rows = await sql.query(
      `SELECT t.role, t.status, t.content, t.runner FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 ORDER BY t.id`,
      [sha(sessionId)],
    );
    return rows.rows.map((r: { role: string; status: string; content: string; runner: string | null }) => `${r.role}:${r.status}:${r.content.slice(0, 12)}${r.runner ? ':run' : ''}`);
  };

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    url = shared.url;
    llm = await startFakeLlm({ reply: REPLY, chunkDelayMs: 100 });
    const config = { llm: { baseUrl: llm.baseUrl, model: 'fake-model' }, apiKey: API_KEY, rateLimitPerMinute: 100_000, replicaHeartbeatMs: HEARTBEAT_MS, orphanAfterMs: ORPHAN_MS, playground: false };
    b = await startSample({ url }, config);
    c = await startSample({ url }, config);
    sql = new Client({ connectionString: url });
    await sql.connect();
  });
  afterAll(async () => {
    for (const child of children) child.kill();
    await sql?.end();
    await b?.close();
    await c?.close();
    await llm?.close();
    await shared?.close();
  });

  it('item 15 + item 9: kill -9 mid-turn — the user message is in history, the reply marked interrupted; the A2A task ends failed and a subscriber on another replica gets that final event; the session goes on', async () => {
    const a = await startChildAgent(childEnv());
    children.push(a);
    // A conversation started on B, continued on A.
    const first = await postTalk(`${b.url}/talk`, { message: 'first' }, AUTH);
    const { session_id: sessionId } = (await first.json()) as { session_id: string };
    const talk = await openTalkStream(`${a.url}/talk`, { message: 'slow talk', session_id: sessionId }, AUTH);
    await nextEvent(talk, 'message.delta');

    // An A2A task running on A, followed from B (SubscribeToTask on another replica).
    const onA = await clientFor(a.url);
    const onB = await clientFor(b.url);
    const stream = onA.sendMessageStream(sendParams(userMessage([text('slow task')])), withKey());
    const head = (await stream.next()).value as StreamResponse;
    const taskId = head.payload?.$case === 'task' ? head.payload.value.id : '';
    expect(taskId).not.toBe('');
    await until('the task stored working with its runner', async () => {
      const { rows } = await sql.query(`SELECT state, runner FROM restap_a2a_tasks WHERE id = $1`, [taskId]);
      return rows[0]?.state === 'TASK_STATE_WORKING' && rows[0]?.runner !== null;
    });
    const followed = collect(onB.resubscribeTask({ tenant: '', id: taskId }, withKey()));
    // A second task on A, to be cancelled once A is dead.
    const second = onA.sendMessageStream(sendParams(userMessage([text('slow task two')])), withKey());
    const secondHead = (await second.next()).value as StreamResponse;
    const secondId = secondHead.payload?.$case === 'task' ? secondHead.payload.value.id : '';
    await until('the second task stored working', async () => (await sql.query(`SELECT state FROM restap_a2a_tasks WHERE id = $1`, [secondId])).rows[0]?.state === 'TASK_STATE_WORKING');

    // While A lives, its running turn is stored open (100 ms in): the user's message is kept, hidden from history until the turn ends.
    await until('the running turn stored open', async () => (await turnsOf(sessionId)).length === 4);
    expect(await turnsOf(sessionId)).toEqual(['user:complete:first', 'assistant:complete:ok first', 'user:open:slow talk:run', 'assistant:open::run']);

    const killed = Date.now();
    a.process.kill('SIGKILL');
    expect(await a.exited(5_000)).toEqual({ code: null, signal: 'SIGKILL' });

    // CancelTask reaching C while A still counts as alive (its heartbeat is not yet stale) is relayed to
    // A, which never confirms: it is answered as soon as the sweep has failed the task, not after the
    // relay's 10 s wait.
    const onC = await clientFor(c.url);
    const asked = Date.now();
    await expect(onC.cancelTask({ tenant: '', id: secondId, metadata: undefined }, withKey())).rejects.toThrow(/not cancelable.*ended before the cancel reached it/i);
    expect(Date.now() - asked).toBeLessThan(ORPHAN_MS + 3_000);

    // B's subscription ends by itself with the failed status: no cancel, no hang.
    const events = await Promise.race([followed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('SubscribeToTask still open 15 s after kill -9')), 15_000))]);
    const endedAfter = Date.now() - killed;
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    const status = last?.$case === 'statusUpdate' ? last.value.status : undefined;
    expect(status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : ''))).toContain(INTERRUPTED_TASK_MESSAGE);
    // Not before A's heartbeat went stale (a live runner is never swept), and soon after.
    expect(endedAfter).toBeGreaterThanOrEqual(ORPHAN_MS - HEARTBEAT_MS);
    expect(endedAfter).toBeLessThan(ORPHAN_MS + 5_000);

    expect((await onB.getTask({ tenant: '', id: secondId }, withKey())).status?.state).toBe(TaskState.TASK_STATE_FAILED);

    // GetTask on either live replica: failed, saying it was interrupted; the partial reply streamed so far stays.
    for (const client of [onB, onC]) {
      const task: Task = await client.getTask({ tenant: '', id: taskId }, withKey());
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(task.status?.message?.taskId).toBe(taskId);
      expect(task.status?.message?.parts[1]?.content).toEqual({ $case: 'data', value: { error: 'interrupted', message: INTERRUPTED_TASK_MESSAGE } });
      expect(task.contextId).not.toBe('');
    }

    // The /talk turn: the user's message stored, the reply marked interrupted, nothing left open.
    await until('the talk turn marked', async () => (await turnsOf(sessionId)).includes('assistant:interrupted:'));
    expect(await turnsOf(sessionId)).toEqual(['user:complete:first', 'assistant:complete:ok first', 'user:complete:slow talk', 'assistant:interrupted:']);
    // The A2A task's own conversation turn (its context is a session) was marked the same way.
    const { rows: open } = await sql.query(`SELECT count(*)::int AS n FROM restap_turns WHERE status = 'open'`);
    expect(open[0].n).toBe(0);

    // The next turn of that session, on B: the model sees the message and the interrupted marker, and replies as usual.
    const before = llm.requests.length;
    const next = await postTalk(`${b.url}/talk`, { message: 'after', session_id: sessionId }, AUTH);
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ reply: 'ok after', session_id: sessionId });
    const seen = messagesOf(llm.requests[before].body).filter((m) => m.role !== 'system').map((m) => `${m.role}:${m.content}`);
    expect(seen).toEqual(['user:first', 'assistant:ok first', 'user:slow talk', `assistant:${INTERRUPTED_NOTE}`, 'user:after']);
    expect(await turnsOf(sessionId)).toEqual([
      'user:complete:first', 'assistant:complete:ok first', 'user:complete:slow talk', 'assistant:interrupted:', 'user:complete:after', 'assistant:complete:ok after',
    ]);
  });

  it('a live replica\'s turn is never swept: a turn on C outlives several orphan windows and ends as itself (aborted by its client)', async () => {
    const first = await postTalk(`${c.url}/talk`, { message: 'hello' }, AUTH);
    const { session_id: sessionId } = (await first.json()) as { session_id: string };
    const talk = await openTalkStream(`${c.url}/talk`, { message: 'slow but alive', session_id: sessionId }, AUTH);
    await nextEvent(talk, 'message.delta');
    await new Promise((r) => setTimeout(r, 3 * ORPHAN_MS));
    expect(await turnsOf(sessionId)).toEqual(['user:complete:hello', 'assistant:complete:ok hello', 'user:open:slow but ali:run', 'assistant:open::run']);
    talk.abort();
    await until('the turn stored aborted', async () => (await turnsOf(sessionId)).at(-1)?.startsWith('assistant:aborted:w0 w1'));
    expect((await turnsOf(sessionId)).slice(2, 3)).toEqual(['user:complete:slow but ali']);
  });

  it('two replicas sweeping at once mark each orphaned turn and task exactly once (UPDATE … WHERE status = \'open\' RETURNING)', async () => {
    const replicas = [b.app.get(RestapReplicas), c.app.get(RestapReplicas)];
    const spies = replicas.map((r) => jest.spyOn(r, 'sweep'));
    try {
      const dead = `dead-${randomUUID()}`;
      const session = await sql.query(`INSERT INTO restap_sessions (key_hash) VALUES ($1) RETURNING id`, [sha(`orphans-${randomUUID()}`)]);
      const sessionRow = session.rows[0].id as string;
      for (let i = 0; i < 20; i++) {
        await sql.query(`INSERT INTO restap_turns (session_id, message_id, role, content, status, runner) VALUES ($1, $2, 'user', $3, 'open', $4), ($1, $5, 'assistant', '', 'open', $4)`, [
          sessionRow, `msg_u${i}`, `question ${i}`, dead, `msg_a${i}`,
        ]);
      }
      const taskDoc = JSON.stringify({ id: 'x', contextId: '', status: { state: 'TASK_STATE_WORKING' }, artifacts: [], history: [] });
      for (let i = 0; i < 5; i++) {
        await sql.query(`INSERT INTO restap_a2a_tasks (id, owner_hash, context_hash, state, status_at, task, runner) VALUES ($1, $2, $2, 'TASK_STATE_WORKING', now(), $3, $4)`, [`${dead}-t${i}`, sha('owner'), taskDoc, dead]);
      }
      // The background ticks of both replicas sweep too; these two calls race them and each other.
      await Promise.all(replicas.map((r) => r.sweep()));
      await until('all swept', async () => {
        const { rows } = await sql.query(`SELECT count(*)::int AS n FROM restap_turns WHERE runner = $1`, [dead]);
        return rows[0].n === 0;
      });
      await new Promise((r) => setTimeout(r, 2 * HEARTBEAT_MS)); // ticks still in flight settle
      const results = await Promise.all(spies.flatMap((spy) => spy.mock.results.map((r) => r.value as Promise<Record<string, number>>)));
      const total = (kind: string): number => results.reduce((n, swept) => n + (swept[kind] ?? 0), 0);
      expect(total('talk.turns')).toBe(20);
      expect(total('a2a.tasks')).toBe(5);
      const { rows } = await sql.query(`SELECT role, status, count(*)::int AS n FROM restap_turns WHERE session_id = $1 GROUP BY role, status ORDER BY role`, [sessionRow]);
      expect(rows).toEqual([{ role: 'assistant', status: 'interrupted', n: 20 }, { role: 'user', status: 'complete', n: 20 }]);
      const tasks = await sql.query(`SELECT state, runner, task::jsonb #>> '{status,message,taskId}' AS message_task FROM restap_a2a_tasks WHERE id LIKE $1 ORDER BY id`, [`${dead}-%`]);
      expect(tasks.rows).toEqual(Array.from({ length: 5 }, (_, i) => ({ state: 'TASK_STATE_FAILED', runner: null, message_task: `${dead}-t${i}` })));
    } finally {
      spies.forEach((spy) => spy.mockRestore());
    }
  });

  it('a live replica whose turn end could not be stored (storage down) stores it as failed once storage is back: no open turn lingers', async () => {
    const first = await postTalk(`${b.url}/talk`, { message: 'one' }, AUTH);
    const { session_id: sessionId } = (await first.json()) as { session_id: string };
    const sqlOfB = b.app.get(RestapSql);
    const original = sqlOfB.query.bind(sqlOfB);
    const down = Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
    const spy = jest.spyOn(sqlOfB, 'query').mockImplementation((stmt: RestapStatement, params: unknown[]) =>
      stmt.purpose.startsWith('talk.turns-close') ? Promise.reject(down) : original(stmt, params));
    try {
      // A turn that lasts (~1 s) is stored as it runs, then its end fails to store.
      const res = await postTalk(`${b.url}/talk`, { message: 'medium two', session_id: sessionId }, AUTH);
      expect([res.status, ((await res.json()) as { error: string }).error]).toEqual([503, 'storage_unavailable']);
      await new Promise((r) => setTimeout(r, 3 * HEARTBEAT_MS)); // retried, and failing, meanwhile
      expect((await turnsOf(sessionId)).slice(2)).toEqual(['user:open:medium two:run', 'assistant:open::run']);
    } finally {
      spy.mockRestore();
    }
    await until('the turn stored as failed', async () => (await turnsOf(sessionId)).at(-1)?.startsWith('assistant:error:w0 w1'));
    expect((await turnsOf(sessionId)).slice(2)).toEqual(['user:complete:medium two', 'assistant:error:w0 w1 w2 w3 ']);
  });

  it('a turn that ends within OPEN_TURN_AFTER_MS is written once, as it ends (no open rows, one statement): quick turns pay nothing for this', async () => {
    const sqlOfB = b.app.get(RestapSql);
    const spy = jest.spyOn(sqlOfB, 'query');
    llm.configure({ chunkDelayMs: 0 });
    try {
      const res = await postTalk(`${b.url}/talk`, { message: 'quick' }, AUTH);
      expect(res.status).toBe(200);
      const { session_id: sessionId } = (await res.json()) as { session_id: string };
      const purposes = spy.mock.calls.map(([stmt]) => (stmt as RestapStatement).purpose).filter((p) => /^talk\.turns-(open|close|append)/.test(p));
      expect(purposes).toEqual(['talk.turns-append']);
      expect(await turnsOf(sessionId)).toEqual(['user:complete:quick', 'assistant:complete:ok quick']);
    } finally {
      llm.configure({ chunkDelayMs: 100 });
      spy.mockRestore();
    }
  });

  it('graceful shutdown (SIGTERM) stores the turn and the task as they ended: nothing is marked interrupted afterwards', async () => {
    const d = await startChildAgent(childEnv({ RESTAP_SHUTDOWN_GRACE_MS: '500' }));
    children.push(d);
    const first = await postTalk(`${d.url}/talk`, { message: 'hi' }, AUTH);
    const { session_id: sessionId } = (await first.json()) as { session_id: string };
    const talk = await openTalkStream(`${d.url}/talk`, { message: 'slow on d', session_id: sessionId }, AUTH);
    await nextEvent(talk, 'message.delta');
    const stream = (await clientFor(d.url)).sendMessageStream(sendParams(userMessage([text('slow task on d')])), withKey());
    const head = (await stream.next()).value as StreamResponse;
    const taskId = head.payload?.$case === 'task' ? head.payload.value.id : '';
    const runner = await until('d\'s heartbeat', async () => (await sql.query(`SELECT runner FROM restap_turns WHERE runner IS NOT NULL AND status = 'open' LIMIT 1`)).rows[0]?.runner as string | undefined);

    d.process.kill('SIGTERM');
    expect(await d.exited(15_000)).toEqual({ code: 0, signal: null });
    await talk.rest();
    // Its heartbeat row went with it, once its turns were stored.
    expect((await sql.query(`SELECT id FROM restap_replicas WHERE id = $1`, [runner])).rows).toEqual([]);
    // Past the orphan window, with B and C sweeping all along.
    await new Promise((r) => setTimeout(r, 2 * ORPHAN_MS));
    const turns = await turnsOf(sessionId);
    expect(turns.slice(0, 3)).toEqual(['user:complete:hi', 'assistant:complete:ok hi', 'user:complete:slow on d']);
    expect(turns[3]).toMatch(/^assistant:error:w0 w1 w2/);
    expect(turns).toHaveLength(4);
    const task: Task = await (await clientFor(b.url)).getTask({ tenant: '', id: taskId }, withKey());
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const said = task.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');
    expect(said).toMatch(/shut down/i);
    expect(said).not.toContain(INTERRUPTED_TASK_MESSAGE);
    const { rows } = await sql.query(`SELECT count(*)::int AS n FROM restap_turns WHERE status IN ('open', 'interrupted') AND session_id IN (SELECT id FROM restap_sessions WHERE key_hash = $1)`, [sha(sessionId)]);
    expect(rows[0].n).toBe(0);
  });
});
