import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { BUILT_MAIN, startChildAgent, type ChildAgent } from '../reliability/support/child-agent';

// Issue 38, item 8 — MCP tasks for 2026-07-28 clients: the `io.modelcontextprotocol/tasks` extension
// (@modelcontextprotocol/ext-tasks, ESM only). Jest's CommonJS runtime cannot `import()` it, so both
// ends run outside Jest: two replicas A and B of the BUILT sample (child processes, one PostgreSQL),
// and the official 2.x client with the extension's requester session (test/mcp/support/
// tasks-extension.client.mjs, a Node ESM child), over real HTTP. `notes.digest` spends STEP_MS per note.
jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const CLIENT = join(__dirname, 'support', 'tasks-extension.client.mjs');
const STEP_MS = 400;
const NOTES: Array<[string, string]> = [['Groceries', 'Milk, eggs and bread'], ['Plumber', 'Call him about the leak'], ['Train', 'Book the train to Lyon'], ['Spec', 'Read the RESTAP spec'], ['Plants', 'Water on Sunday']];
const ALICE = { authorization: 'Bearer alice-key' };
const BOB = { authorization: 'Bearer bob-key' };

type Step = Record<string, unknown> & { do: string };
type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Runs the client's steps in a Node ESM child; its JSON answer, keyed by step. */
function client(steps: Step[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLIENT, JSON.stringify(steps)], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      try {
        const answer = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Answer;
        if (answer.fatal) return reject(new Error(`client failed: ${JSON.stringify(answer.fatal)}\n${stderr}`));
        resolve(answer);
      } catch {
        reject(new Error(`client gave no answer (${error?.message ?? 'no error'}):\n${stdout}\n${stderr}`));
      }
    });
  });
}

/** Newest modification time under a folder, ms. */
function newest(dir: string): number {
  let at = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    at = Math.max(at, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return at;
}

/** The built sample, built here when missing or older than its sources (CI builds it before the tests). */
function ensureBuilt(): void {
  const sources = Math.max(newest(join(ROOT, 'libs/restap/src')), newest(join(ROOT, 'apps/sample-agent/src')));
  if (existsSync(BUILT_MAIN) && statSync(BUILT_MAIN).mtimeMs >= sources) return;
  execFileSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build', 'sample-agent'], { cwd: ROOT, stdio: 'inherit' });
}

const connect = (as: string, url: string, headers: Record<string, string> = {}, tasks = true): Step => ({ do: 'connect', as, url, headers, tasks });

describe('issue 38, item 8 — the io.modelcontextprotocol/tasks extension (2026-07-28) on the built sample, two replicas, one PostgreSQL', () => {
  let shared: ReplicaDatabase | undefined;
  const replicas: ChildAgent[] = [];
  let a: string;
  let b: string;

  beforeAll(async () => {
    ensureBuilt();
    shared = await openReplicaDatabase();
    const env = { DATABASE_URL: shared.url, RESTAP_RATE_LIMIT: '0', RESTAP_PLAYGROUND: '0', RESTAP_NOTES_DIGEST_STEP_MS: String(STEP_MS) };
    for (let i = 0; i < 2; i++) replicas.push(await startChildAgent(env, 60_000, { built: true }));
    [a, b] = replicas.map((r) => `${r.url}/mcp`);
    for (const headers of [ALICE, BOB]) {
      for (const [title, body] of NOTES) {
        const created = await fetch(`${replicas[0].url}/notes`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ title, body }) });
        expect(created.status).toBe(201);
      }
    }
  });
  afterAll(async () => {
    for (const replica of replicas) replica.kill();
    await shared?.close();
  });

  it('server/discover declares the extension; a declaring client gets a CreateTaskResult (resultType "task") at once, polls tasks/get and reads the CallToolResult inlined once completed', async () => {
    const answer = await client([
      connect('alice', a, ALICE),
      { do: 'capabilities', on: 'alice', as: 'capabilities' },
      { do: 'call', on: 'alice', name: 'notes_digest', arguments: { limit: 5 }, wait: true, as: 'task' },
      { do: 'snapshot', on: 'alice', taskId: { from: 'task' }, as: 'ended' },
      connect('plain', a, ALICE, false),
      { do: 'plainCall', on: 'plain', name: 'notes_digest', arguments: { limit: 5 }, as: 'plain' },
    ]);
    expect(answer.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} });
    expect(answer.task).toMatchObject({ kind: 'task', taskId: expect.any(String), outcome: { status: 'completed' } });
    expect(answer.task.wire).toMatchObject({ resultType: 'task', taskId: answer.task.taskId, status: 'working', ttlMs: 3_600_000, pollIntervalMs: expect.any(Number) });
    // The CreateTaskResult came before the job (5 notes x STEP_MS) could have ended.
    expect(answer.task.ms).toBeLessThan(5 * STEP_MS);
    const created = answer.task.outcome.task;
    expect(Date.parse(created.lastUpdatedAt) - Date.parse(created.createdAt)).toBeGreaterThanOrEqual(4 * STEP_MS);
    expect(answer.task.result).toMatchObject({ resultType: 'complete', structuredContent: { notes: 5, digest: expect.stringContaining('**Groceries**') } });
    expect(answer.ended.raw).toMatchObject({ status: 'completed', ttlMs: 3_600_000, resultType: 'complete', result: { structuredContent: { notes: 5 } } });
    // The same answer a plain call gives.
    expect({ ...answer.plain.result.structuredContent, created_at: '' }).toEqual({ ...answer.task.result.structuredContent, created_at: '' });
  });

  it('a task started on replica A is followed with tasks/get on replica B while it works, and B reads its result once it ends', async () => {
    const answer = await client([
      connect('onA', a, ALICE),
      connect('onB', b, ALICE),
      { do: 'call', on: 'onA', name: 'notes_digest', arguments: { limit: 5 }, as: 'task' },
      { do: 'snapshot', on: 'onB', taskId: { from: 'task' }, as: 'working' },
      { do: 'result', on: 'onB', taskId: { from: 'task' }, as: 'ended' },
    ]);
    expect(answer.task).toMatchObject({ kind: 'task' });
    expect(answer.task.ms).toBeLessThan(5 * STEP_MS);
    expect(answer.working).toMatchObject({ taskId: answer.task.taskId, status: 'working', raw: { pollIntervalMs: expect.any(Number) } });
    expect(answer.ended).toMatchObject({ status: 'completed', result: { structuredContent: { notes: 5 } } });
  });

  it('tasks/cancel on replica B stops the call running on replica A: the task ends cancelled long before the job would have', async () => {
    const answer = await client([
      connect('onA', a, ALICE),
      connect('onB', b, ALICE),
      // 50 notes asked, 10 stored: ~4 s of work; cancelled after 300 ms.
      { do: 'call', on: 'onA', name: 'notes_digest', arguments: { limit: 50 }, as: 'task' },
      { do: 'sleep', ms: 300 },
      { do: 'cancel', on: 'onB', taskId: { from: 'task' }, as: 'cancel' },
      { do: 'snapshot', on: 'onA', taskId: { from: 'task' }, as: 'after' },
    ]);
    expect(answer.cancel).toEqual({ cancelled: true });
    expect(answer.after).toMatchObject({ status: 'cancelled' });
    const task = answer.after.raw;
    expect(Date.parse(task.lastUpdatedAt) - Date.parse(task.createdAt)).toBeLessThan(10 * STEP_MS);
  });

  it("another caller cannot see the task: tasks/get and tasks/cancel with another identity are -32602 (invalid or nonexistent taskId), and the owner's task runs on", async () => {
    const answer = await client([
      connect('alice', a, ALICE),
      connect('bob', b, BOB),
      { do: 'call', on: 'alice', name: 'notes_digest', arguments: { limit: 5 }, as: 'task' },
      { do: 'snapshot', on: 'bob', taskId: { from: 'task' }, as: 'bobGets', mayThrow: true },
      { do: 'cancel', on: 'bob', taskId: { from: 'task' }, as: 'bobCancels', mayThrow: true },
      { do: 'result', on: 'alice', taskId: { from: 'task' }, as: 'ended' },
    ]);
    expect(answer.bobGets.thrown).toMatchObject({ code: -32602, data: { error: 'task_not_found', status: 404 } });
    expect(answer.bobCancels.thrown).toMatchObject({ code: -32602 });
    expect(answer.ended).toMatchObject({ status: 'completed', result: { structuredContent: { notes: 5 } } });
  });

  it('a 2026-07-28 client that does not declare the extension gets a plain (blocking) result, never a task; its tasks/get is -32021 (missing required client capability)', async () => {
    const started = await client([
      connect('alice', a, ALICE),
      { do: 'call', on: 'alice', name: 'notes_digest', arguments: { limit: 50 }, as: 'task' },
    ]);
    const answer = await client([
      connect('plain', b, ALICE, false),
      { do: 'plainCall', on: 'plain', name: 'notes_digest', arguments: { limit: 5 }, as: 'plain' },
      { do: 'clientRequest', on: 'plain', method: 'tasks/get', params: { taskId: started.task.taskId }, as: 'get', mayThrow: true },
    ]);
    expect(answer.plain.ms).toBeGreaterThanOrEqual(5 * STEP_MS);
    expect(answer.plain.result).toMatchObject({ structuredContent: { notes: 5 } });
    expect(answer.plain.result.task).toBeUndefined();
    expect(answer.get.thrown).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } });
  });

  it('a capability that refuses ends the task completed with the tool error as its result (isError, io.restap/error), not failed: failed is for JSON-RPC errors only', async () => {
    const answer = await client([
      connect('alice', a, ALICE),
      { do: 'call', on: 'alice', name: 'notes_digest', arguments: { q: 'nothing-matches-this' }, wait: true, as: 'task' },
    ]);
    expect(answer.task).toMatchObject({ kind: 'task', outcome: { status: 'completed' } });
    expect(answer.task.result).toMatchObject({ isError: true, _meta: { 'io.restap/error': { error: 'not_found', status: 404 } } });
  });
});
