import { TaskState, type Task as A2aTask } from '@a2a-js/sdk';
import { Body, Controller, HttpCode, Module, Post, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { IsInt, Max, Min } from 'class-validator';
import { setTimeout as sleep } from 'node:timers/promises';
import { Capability, capabilitySignal, RestapModule } from 'nestjs-restap';
import { DatabaseModule } from '../../apps/sample-agent/src/database/database.module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { listen } from '../support/sample-app';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ListTasksResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { startChildAgent, type ChildAgent } from '../reliability/support/child-agent';
import { API_KEY, asTask, clientFor, data, dataOf, sendParams, userMessage, withKey } from '../a2a/a2a-support';
import { connectModern } from './mcp-clients';

// Issue 38, item 8 — long-running capabilities. The sample's `notes.digest` (@Capability({ task: true }))
// spends STEP_MS on each note. Two replicas of the sample (A and B, in this process) share one
// PostgreSQL; a third (C) runs in a child process and is killed with -9 mid-task. MCP through the
// official 1.x client (2025-11-25 tasks), A2A through the official @a2a-js/sdk client.
jest.setTimeout(180_000);

const STEP_MS = 200;
const HEARTBEAT_MS = 200;
const ORPHAN_MS = 1_500;
const AUTH = { authorization: `Bearer ${API_KEY}` };
/** Three of them contain "the". */
const NOTES: Array<[string, string]> = [['Groceries', 'Milk, eggs and bread'], ['Plumber', 'Call him about the leak'], ['Train', 'Book the train to Lyon'], ['Spec', 'Read the RESTAP spec'], ['Plants', 'Water on Sunday']];

type DigestResult = { structuredContent?: { notes: number; words: number; digest: string; created_at: string }; isError?: boolean; _meta?: Record<string, unknown> };

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every client a test opened: closed after the tests, whatever they asserted (an open session stream holds its app). */
const opened: Array<{ close(): Promise<void> }> = [];

async function mcpClient(baseUrl: string, headers: Record<string, string> = AUTH): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'restap-tasks-e2e', version: '1.0.0' });
  await client.connect(new LegacyTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
  opened.push(client);
  return client;
}

/** tools/call asking for a task (2025-11-25): the CreateTaskResult. */
async function startTask(client: LegacyClient, args: Record<string, unknown>) {
  return client.request({ method: 'tools/call', params: { name: 'notes_digest', arguments: args } }, CreateTaskResultSchema, { task: { ttl: 60_000 } });
}

describe('issue 38, item 8 — @Capability({ task: true }) runs as an MCP task and a non-blocking A2A task, across replicas', () => {
  let shared: ReplicaDatabase | undefined;
  let a: RunningApp;
  let b: RunningApp;
  const children: ChildAgent[] = [];

  beforeAll(async () => {
    shared = await openReplicaDatabase();
    const config = { apiKey: API_KEY, notesDigestStepMs: STEP_MS, replicaHeartbeatMs: HEARTBEAT_MS, orphanAfterMs: ORPHAN_MS, rateLimitPerMinute: 100_000, playground: false };
    a = await startSample({ url: shared.url }, config);
    b = await startSample({ url: shared.url }, config);
    for (const [title, body] of NOTES) {
      const created = await fetch(`${a.url}/notes`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ title, body }) });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await Promise.all(opened.map((client) => client.close().catch(() => undefined)));
    for (const child of children) child.kill();
    await a?.close();
    await b?.close();
    await shared?.close();
  });

  it('MCP tools/list marks the task capability with execution.taskSupport and the server advertises tasks on tools/call (2025-11-25)', async () => {
    const client = await mcpClient(a.url);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'notes_digest')?.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.find((t) => t.name === 'notes_list')?.execution).toBeUndefined();
    expect(client.getServerCapabilities()?.tasks).toEqual({ requests: { tools: { call: {} } }, list: {}, cancel: {} });
    await client.close();
    // 2026-07-28 has no `execution` in a Tool: the SDK leaves it out, and the tool is called plainly there.
    const modern = await connectModern(`${a.url}/mcp`, AUTH);
    opened.push(modern);
    const listed = (await modern.listTools()).tools.find((t) => t.name === 'notes_digest') as Record<string, unknown>;
    expect(listed).toBeDefined();
    expect(listed.execution).toBeUndefined();
    await modern.close();
  });

  it('MCP: the task starts on A and answers at once (working); B follows it with tasks/get and gets the result with tasks/result, checked against the output schema', async () => {
    const onA = await mcpClient(a.url);
    const onB = await mcpClient(b.url);
    const started = Date.now();
    const { task } = await startTask(onA, { limit: 5 });
    // Five notes at STEP_MS each: the answer came before the job could have ended.
    expect(Date.now() - started).toBeLessThan(5 * STEP_MS);
    // The ttl the client asked (60 s, below capabilityTasks.ttlMs).
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: expect.any(Number) });
    expect((await onB.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    const completed = await until('the task to complete on B', async () => {
      const now = await onB.experimental.tasks.getTask(task.taskId);
      return now.status === 'completed' && now;
    });
    expect(completed.taskId).toBe(task.taskId);
    const result = (await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as DigestResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ notes: 5, digest: expect.stringContaining('**Groceries**') });
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });
    // The same as a plain call answers (no task asked: the call holds the request until it ends).
    const plain = (await onA.callTool({ name: 'notes_digest', arguments: { limit: 5 } })) as DigestResult;
    expect({ ...plain.structuredContent, created_at: '' }).toEqual({ ...result.structuredContent, created_at: '' });
    await onA.close();
    await onB.close();
  });

  it("MCP: the official client's callToolStream follows the task to its result (taskCreated, status, result)", async () => {
    const client = await mcpClient(b.url);
    await client.listTools(); // the client learns which tools take tasks
    const kinds: string[] = [];
    let final: DigestResult | undefined;
    for await (const message of client.experimental.tasks.callToolStream({ name: 'notes_digest', arguments: { q: 'the', limit: 5 } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
      kinds.push(message.type);
      if (message.type === 'result') final = message.result as DigestResult;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds[kinds.length - 1]).toBe('result');
    expect(final?.structuredContent?.notes).toBe(3);
    await client.close();
  });

  it('MCP: tasks/cancel on B reaches the call running on A: the task ends cancelled long before the job would have', async () => {
    const onA = await mcpClient(a.url);
    const onB = await mcpClient(b.url);
    // 50 notes asked, 5 stored: still ~1 s; cancelled after 300 ms.
    const { task } = await startTask(onA, { limit: 50 });
    await new Promise((r) => setTimeout(r, 300));
    const asked = Date.now();
    const cancelled = await onB.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    expect(Date.now() - asked).toBeLessThan(3 * STEP_MS + 1_000);
    expect((await onA.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    const result = (await onA.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as DigestResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.['io.restap/error']).toEqual({ error: 'cancelled', status: 499 });
    // A task that ended cannot be cancelled again: our error code beside the JSON-RPC one.
    const again = await onB.experimental.tasks.cancelTask(task.taskId).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(McpError);
    expect((again as McpError).code).toBe(-32602);
    expect((again as McpError).data).toMatchObject({ error: 'task_not_cancelable', status: 409 });
    await onA.close();
    await onB.close();
  });

  it("MCP: a capability's refusal fails the task with our JSON error code; bad arguments are refused before a task exists; an unknown task is task_not_found", async () => {
    const client = await mcpClient(a.url);
    const { task } = await startTask(client, { q: 'nothing-matches-this' });
    const failed = await until('the task to fail', async () => {
      const now = await client.experimental.tasks.getTask(task.taskId);
      return now.status === 'failed' && now;
    });
    expect(failed.statusMessage).toContain('No note contains');
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as DigestResult;
    expect(result.isError).toBe(true);
    expect(result._meta?.['io.restap/error']).toEqual({ error: 'not_found', status: 404 });

    const invalid = await startTask(client, { limit: 0 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(McpError);
    expect((invalid as McpError).code).toBe(-32602);

    const unknown = await client.experimental.tasks.getTask('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect((unknown as McpError).code).toBe(-32602);
    expect((unknown as McpError).data).toMatchObject({ error: 'task_not_found', status: 404 });
    // Another caller (another API key would be refused by the sample's guard: a different identity is
    // a different owner): the same id is unknown to it.
    await client.close();
  });

  it('A2A: a SendMessage with returnImmediately answers the task working; GetTask on B sees it complete with the result artifact', async () => {
    const onA = await clientFor(a.url);
    const onB = await clientFor(b.url);
    const started = Date.now();
    const sent = asTask(
      await onA.sendMessage(
        { ...sendParams(userMessage([data({ capability: 'notes.digest', arguments: { limit: 5 } })])), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true } },
        withKey(),
      ),
    );
    expect(Date.now() - started).toBeLessThan(5 * STEP_MS);
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const done = await until('the A2A task to complete on B', async () => {
      const task = (await onB.getTask({ tenant: '', id: sent.id, historyLength: undefined }, withKey())) as A2aTask;
      return task.status?.state === TaskState.TASK_STATE_COMPLETED && task;
    });
    expect(dataOf(done.artifacts.find((x) => x.name === 'result')?.parts)).toMatchObject({ notes: 5, words: expect.any(Number) });
  });

  it('A2A: CancelTask on B stops the non-blocking task running on A', async () => {
    const onA = await clientFor(a.url);
    const onB = await clientFor(b.url);
    const sent = asTask(
      await onA.sendMessage(
        { ...sendParams(userMessage([data({ capability: 'notes.digest', arguments: { limit: 50 } })])), configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true } },
        withKey(),
      ),
    );
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const cancelled = await onB.cancelTask({ tenant: '', id: sent.id, metadata: undefined }, withKey());
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('MCP: a replica killed with -9 mid-task leaves the task failed (interrupted) by the orphan sweep, not working', async () => {
    const c = await startChildAgent({
      DATABASE_URL: shared!.url,
      RESTAP_API_KEY: API_KEY,
      RESTAP_RATE_LIMIT: '0',
      RESTAP_PLAYGROUND: '0',
      RESTAP_REPLICA_HEARTBEAT_MS: String(HEARTBEAT_MS),
      RESTAP_ORPHAN_AFTER_MS: String(ORPHAN_MS),
      // ~25 s for five notes: C is killed long before.
      RESTAP_NOTES_DIGEST_STEP_MS: '5000',
    });
    children.push(c);
    const onC = await mcpClient(c.url);
    const { task } = await startTask(onC, { limit: 5 });
    c.process.kill('SIGKILL');
    await c.exited(10_000);
    const onB = await mcpClient(b.url);
    const failed = await until('the sweep to fail the task', async () => {
      const now = await onB.experimental.tasks.getTask(task.taskId);
      return now.status !== 'working' && now;
    }, 20_000);
    expect(failed.status).toBe('failed');
    expect(failed.statusMessage).toContain('interrupted');
    const result = (await onB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as DigestResult;
    expect(result._meta?.['io.restap/error']).toEqual({ error: 'interrupted', status: 503 });
    await onB.close();
  });
});

/** The fixture's `capabilityTasks.ttlMs`. */
const TTL_CAP_MS = 120_000;

/** What the fixture's job saw of its signal: `done <ms>` or `aborted: <reason>`. */
const seen: string[] = [];

class SlowJob {
  @IsInt()
  @Min(1)
  @Max(60_000)
  ms!: number;
}

class JobDone {
  ms!: number;
}

@Controller('jobs')
class JobsController {
  @Post('slow')
  @HttpCode(200)
  @Capability({ id: 'jobs.slow', title: 'A slow job', output: JobDone, task: true })
  async slow(@Body() body: SlowJob, @Req() req: object): Promise<JobDone> {
    const signal = capabilitySignal(req);
    try {
      await sleep(body.ms, undefined, { signal });
    } catch {
      seen.push(`aborted: ${(signal.reason as Error)?.message}`);
      throw signal.reason;
    }
    seen.push(`done ${body.ms}`);
    return { ms: body.ms };
  }
}

describe('issue 38, item 8 — a task capability sees the cancel and runs past capabilityTimeoutMs (fixture app)', () => {
  let db: TestDatabase;
  let app: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    @Module({
      imports: [
        DatabaseModule.forRoot(db.target),
        RestapModule.forRoot({ agent: { name: 'Jobs' }, talk: false, mcp: { enabled: true }, capabilityTimeoutMs: 300, capabilityTasks: { timeoutMs: 1_500, ttlMs: TTL_CAP_MS } }),
      ],
      controllers: [JobsController],
    })
    class JobsModule {}
    const nest = await NestFactory.create<NestExpressApplication>(JobsModule, { logger: false });
    app = await listen(nest);
  });
  afterAll(async () => {
    await Promise.all(opened.map((client) => client.close().catch(() => undefined)));
    await app?.close();
    await db?.drop();
  });

  it('tasks/cancel aborts capabilitySignal(req) in the running handler', async () => {
    seen.length = 0;
    const client = await mcpClient(app.url);
    const { task } = await client.request({ method: 'tools/call', params: { name: 'jobs_slow', arguments: { ms: 10_000 } } }, CreateTaskResultSchema, { task: {} });
    await sleep(200);
    expect((await client.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
    await until('the handler to see the abort', async () => seen.length > 0);
    expect(seen).toEqual(['aborted: The task was cancelled.']);
  });

  it('a task may run capabilityTasks.timeoutMs where a plain call ends at capabilityTimeoutMs (504 tool_timeout); past it the task fails tool_timeout', async () => {
    seen.length = 0;
    const client = await mcpClient(app.url);
    const plain = (await client.callTool({ name: 'jobs_slow', arguments: { ms: 800 } })) as DigestResult;
    expect(plain.isError).toBe(true);
    expect(plain._meta?.['io.restap/error']).toEqual({ error: 'tool_timeout', status: 504 });

    const { task } = await client.request({ method: 'tools/call', params: { name: 'jobs_slow', arguments: { ms: 800 } } }, CreateTaskResultSchema, { task: {} });
    const done = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as { structuredContent?: unknown };
    expect(done.structuredContent).toEqual({ ms: 800 });

    const { task: late } = await client.request({ method: 'tools/call', params: { name: 'jobs_slow', arguments: { ms: 5_000 } } }, CreateTaskResultSchema, { task: {} });
    const failed = (await client.experimental.tasks.getTaskResult(late.taskId, CallToolResultSchema)) as DigestResult;
    expect(failed._meta?.['io.restap/error']).toEqual({ error: 'tool_timeout', status: 504 });
    expect(seen).toEqual(expect.arrayContaining(['done 800', expect.stringMatching(/^aborted: /)]));
  });

  it('params.task.ttl (2025-11-25 task metadata) is honoured, capped by capabilityTasks.ttlMs; without one the task keeps capabilityTasks.ttlMs', async () => {
    const client = await mcpClient(app.url);
    const start = async (task: Record<string, unknown>) =>
      (await client.request({ method: 'tools/call', params: { name: 'jobs_slow', arguments: { ms: 1 } } }, CreateTaskResultSchema, { task })).task;
    expect((await start({ ttl: 10_000 })).ttl).toBe(10_000);
    expect((await start({ ttl: 10 * TTL_CAP_MS })).ttl).toBe(TTL_CAP_MS);
    const plain = await start({});
    expect(plain.ttl).toBe(TTL_CAP_MS);
    expect((await client.experimental.tasks.getTask(plain.taskId)).ttl).toBe(TTL_CAP_MS);
  });

  it("tasks/list (2025-11-25) lists the caller's own tasks only, newest first, paged by nextCursor; an unknown cursor is -32602", async () => {
    const alice = await mcpClient(app.url, { authorization: 'Bearer alice' });
    const bob = await mcpClient(app.url, { authorization: 'Bearer bob' });
    const started: string[] = [];
    // One page is TASK_LIST_PAGE (50) tasks: 52 make a second page.
    for (let i = 0; i < 52; i++) {
      const { task } = await alice.request({ method: 'tools/call', params: { name: 'jobs_slow', arguments: { ms: 1 } } }, CreateTaskResultSchema, { task: {} });
      started.push(task.taskId);
    }
    const { task: bobs } = await bob.request({ method: 'tools/call', params: { name: 'jobs_slow', arguments: { ms: 1 } } }, CreateTaskResultSchema, { task: {} });

    const first = await alice.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
    expect(first.tasks).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await alice.request({ method: 'tasks/list', params: { cursor: first.nextCursor } }, ListTasksResultSchema);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tasks, ...second.tasks].map((t) => t.taskId)).toEqual([...started].reverse());

    const bobsList = await bob.request({ method: 'tasks/list' }, ListTasksResultSchema);
    expect(bobsList.tasks.map((t) => t.taskId)).toEqual([bobs.taskId]);

    const unknown = await bob.request({ method: 'tasks/list', params: { cursor: first.nextCursor } }, ListTasksResultSchema).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
  });
});
