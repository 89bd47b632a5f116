import type { KeyedWakeups } from '../../libs/restap/src/core/news/keyed-wakeups';
import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { IsString, Matches } from 'class-validator';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Capability, capabilitySignal, NewsWakeups } from 'nestjs-restap';
import { CapabilityTaskWakeups } from 'nestjs-restap/core/tasks/capability-task.wakeups';
import { TalkFrameWakeups } from 'nestjs-restap/doors/restap/talk/resume/talk-frame.wakeups';
import { A2aTaskStore } from 'nestjs-restap/doors/a2a/a2a-task.store';
import { RestapReplicas } from 'nestjs-restap/core/lifecycle/restap-replicas.service';
import { A2aCaller } from 'nestjs-restap/doors/a2a/a2a-caller';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { Client as PgClient } from 'pg';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { openTalkStream } from '../fixtures/talk-sse';
import { startReliabilityApp, type ReliabilityApp } from './support/reliability-app';

// Issue 38, item 5 — what still polled PostgreSQL every 200–250 ms wakes on LISTEN/NOTIFY instead:
// capability tasks (a cancel asked on another replica, MCP tasks/result waiting on another replica)
// and a /talk resume following a turn another replica runs. Two app instances on one PostgreSQL. The
// safety re-read (news.resyncMs) is set far past the test, so only a NOTIFY can wake a waiter; each
// wait is bounded so a missing wake-up fails instead of hanging.
jest.setTimeout(120_000);

/** Far past the test: a waiter woken within it was woken by a NOTIFY, not by the safety re-read. */
const RESYNC_MS = 600_000;
/** How long a test waits for a wake-up before it calls it missing (a bound, not a speed check). */
const MISSING_AFTER_MS = 20_000;

/** The fixture job's gates, by name: a job runs until the test opens its gate or its signal aborts. */
const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
const seen: string[] = [];

function gate(name: string): { open: () => void; opened: Promise<void> } {
  let entry = gates.get(name);
  if (!entry) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    gates.set(name, (entry = { open, opened }));
  }
  return entry;
}

class GatedJob {
  @IsString()
  @Matches(/^[a-z0-9-]{1,32}$/)
  name!: string;
}

class GatedDone {
  name!: string;
}

@Controller('jobs')
class GatedJobsController {
  @Post('gated')
  @HttpCode(200)
  @Capability({ id: 'jobs.gated', title: 'A job that waits for its gate', output: GatedDone, task: true })
  async gated(@Body() body: GatedJob, @Req() req: object): Promise<GatedDone> {
    const signal = capabilitySignal(req);
    seen.push(`started ${body.name}`);
    await new Promise<void>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      void gate(body.name).opened.then(resolve);
    }).catch((error: unknown) => {
      seen.push(`aborted ${body.name}`);
      throw error;
    });
    seen.push(`done ${body.name}`);
    return { name: body.name };
  }
}

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + MISSING_AFTER_MS;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `promise`, or a failure naming the wake-up that never came. */
function woken<T>(what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const missing = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no wake-up within ${MISSING_AFTER_MS} ms`)), MISSING_AFTER_MS)));
  return Promise.race([promise, missing]).finally(() => clearTimeout(timer));
}

/** How many waiters the wake-ups hold for `key` (their private KeyedWakeups: the test waits until the waiter is in place). */
const waitersOf = (wakeups: CapabilityTaskWakeups | TalkFrameWakeups, key: string): number =>
  (wakeups as unknown as { keys: KeyedWakeups }).keys.waiting(wakeups instanceof CapabilityTaskWakeups ? 'e' : 'f', key);

const opened: McpClient[] = [];
async function mcpClient(baseUrl: string): Promise<McpClient> {
  const client = new McpClient({ name: 'restap-task-wakeups-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
  opened.push(client);
  return client;
}

async function startTask(client: McpClient, name: string): Promise<string> {
  const { task } = await client.request({ method: 'tools/call', params: { name: 'jobs_gated', arguments: { name } } }, CreateTaskResultSchema, { task: { ttl: 60_000 } });
  return task.taskId;
}

describe('issue 38, item 5 — replicas wake on LISTEN/NOTIFY: capability tasks and resumed /talk streams', () => {
  let shared: ReplicaDatabase | undefined;
  let a: ReliabilityApp;
  let b: ReliabilityApp;

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    const restap = {
      talk: { streaming: true, sessions: true, resume: true },
      news: { resyncMs: RESYNC_MS },
      mcp: { enabled: true },
      a2a: { enabled: true },
    };
    a = await startReliabilityApp({ url: shared.url }, { restap, controllers: [GatedJobsController] });
    b = await startReliabilityApp({ url: shared.url }, { restap, controllers: [GatedJobsController] });
    // Both listen before the first test (LISTEN is opened after bootstrap).
    for (const app of [a, b]) {
      const wakeups = app.app.get(NewsWakeups);
      await until('the LISTEN connection', () => wakeups.listening);
      expect(wakeups.transport).toBe('listen');
    }
  });
  afterAll(async () => {
    for (const entry of gates.values()) entry.open();
    await Promise.all(opened.map((client) => client.close().catch(() => undefined)));
    await a?.close();
    await b?.close();
    await shared?.close();
  });

  it('MCP tasks/cancel asked on B stops the capability task running on A (its signal aborts, the task ends cancelled)', async () => {
    const taskId = await startTask(await mcpClient(a.url), 'cancel-me');
    await until('the job to start on A', () => seen.includes('started cancel-me'));
    const onB = await mcpClient(b.url);
    // B flags the row and waits for A to store the end: both hops are wake-ups (the cancel's, then the end's).
    const cancelled = await woken('the cancel on B', onB.experimental.tasks.cancelTask(taskId));
    expect(cancelled.status).toBe('cancelled');
    expect(seen).toContain('aborted cancel-me');
  });

  it('MCP tasks/result waiting on B answers when the task running on A ends', async () => {
    const taskId = await startTask(await mcpClient(a.url), 'finish-me');
    await until('the job to start on A', () => seen.includes('started finish-me'));
    const onB = await mcpClient(b.url);
    const result = onB.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    await until('tasks/result to wait on B', () => waitersOf(b.app.get(CapabilityTaskWakeups), taskId) > 0);
    gate('finish-me').open();
    const answered = (await woken('tasks/result on B', result)) as { structuredContent?: unknown; isError?: boolean };
    expect(answered.isError).toBeFalsy();
    expect(answered.structuredContent).toEqual({ name: 'finish-me' });
  });

  it('a /talk stream resumed on B (GET /talk/{message_id}) follows the turn running on A to its done', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    a.brain.behaviour = () =>
      (async function* () {
        yield 'first ';
        await released;
        yield 'second';
      })();
    const live = await openTalkStream(`${a.url}/talk`, { message: 'two parts, please' });
    const start = await live.next();
    expect(start?.event).toBe('message.start');
    const { id: messageId, session_id: sessionId } = start!.data as { id: string; session_id: string };
    expect((await live.next())?.event).toBe('message.delta');

    // The first frames are kept within flushMs; then B replays them and waits for the rest.
    const headers = { accept: 'text/event-stream', 'restap-session-id': sessionId };
    const resumed = await until('the resume on B to find the turn', async () => {
      const response = await fetch(`${b.url}/talk/${messageId}`, { headers });
      return response.status === 200 ? response : (await response.body?.cancel(), false);
    });
    const events = readSse(resumed);
    await until('the resumed stream to wait on B', () => waitersOf(b.app.get(TalkFrameWakeups), messageId) > 0);
    release();
    const frames = await woken('the resumed stream on B', events);
    expect(frames.map((f) => f.event)).toEqual(['message.start', 'message.delta', 'message.delta', 'message.end', 'done']);
    expect(frames.filter((f) => f.event === 'message.delta').map((f) => (JSON.parse(f.data) as { text: string }).text).join('')).toBe('first second');
    await live.rest();
  });

  it('DELETE /talk/{message_id} asked on B stops the turn running on A: its live stream ends with turn_stopped', async () => {
    a.brain.behaviour = (ctx) =>
      (async function* () {
        yield 'first ';
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      })();
    const live = await openTalkStream(`${a.url}/talk`, { message: 'run until stopped' });
    const start = await live.next();
    const { id: messageId, session_id: sessionId } = start!.data as { id: string; session_id: string };
    expect((await live.next())?.event).toBe('message.delta');
    // B writes the stop row (once the turn's first frames are kept) and wakes A, which stops the turn.
    await until('B to accept the stop', async () => {
      const response = await fetch(`${b.url}/talk/${messageId}`, { method: 'DELETE', headers: { 'restap-session-id': sessionId } });
      return response.status === 202;
    });
    const rest = await woken('the stop on A', live.rest());
    const error = rest.find((f) => f.event === 'error');
    expect(error?.data).toMatchObject({ error: 'turn_stopped' });
    expect(rest[rest.length - 1]?.event).toBe('done');
  });

  it("a capability task (kind capability, same table) is never an A2A task: GetTask and CancelTask answer not found, the A2A store's reads skip it even under its own owner hash, the A2A orphan sweep leaves it alone", async () => {
    const taskId = await startTask(await mcpClient(a.url), 'not-a2a');
    await until('the job to start on A', () => seen.includes('started not-a2a'));
    const rpc = async (method: string, params: unknown) =>
      (await (await fetch(`${b.url}/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as {
        result?: { tasks?: Array<{ id: string }> };
        error?: { code: number };
      };
    expect((await rpc('GetTask', { id: taskId })).error?.code).toBe(-32001);
    expect((await rpc('CancelTask', { id: taskId })).error?.code).toBe(-32001);
    // The A2A and capability owner hashes are derived apart; the kind alone must keep the row out even
    // for an A2A caller whose owner hash were the task's.
    const sql = new PgClient({ connectionString: shared!.url });
    await sql.connect();
    const [{ owner_hash: ownerHash }] = (await sql.query<{ owner_hash: Buffer }>('SELECT owner_hash FROM restap_a2a_tasks WHERE id = $1', [taskId])).rows;
    await sql.end();
    const caller = new A2aCaller({ headers: {} }, 'same-owner');
    (caller as { ownerHash: Buffer }).ownerHash = ownerHash;
    const store = b.app.get(A2aTaskStore);
    const context = new ServerCallContext({ user: caller });
    expect(await store.load(taskId, context)).toBeUndefined();
    expect(await store.list({ tenant: '', contextId: '', status: 0, pageSize: 50, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false } as Parameters<A2aTaskStore['list']>[0], context)).toMatchObject({ tasks: [], totalSize: 0 });
    // B's A2A sweep with a zero orphan window counts A as dead: it must not fail A's capability task as an A2A one.
    const swept = await b.app.get(A2aTaskStore).failOrphans(b.app.get(RestapReplicas).id, 0);
    expect(swept).toBe(0);
    const onA = await mcpClient(a.url);
    expect((await onA.experimental.tasks.getTask(taskId)).status).toBe('working');
    gate('not-a2a').open();
    const done = (await onA.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as { structuredContent?: unknown };
    expect(done.structuredContent).toEqual({ name: 'not-a2a' });
  });
});

/** Every SSE event of a response until it ends. */
async function readSse(response: Response): Promise<Array<{ event: string; data: string }>> {
  const frames: Array<{ event: string; data: string }> = [];
  const parser = createParser({ onEvent: (e: EventSourceMessage) => frames.push({ event: e.event ?? 'message', data: e.data }) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  return frames;
}
