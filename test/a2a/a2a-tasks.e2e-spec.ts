import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { createTestDatabase, usingServer, type TestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { API_KEY, artifactText, asTask, clientFor, collect, sendParams, text, userMessage, withKey } from './a2a-support';

jest.setTimeout(120_000);

const stateOf = (event: StreamResponse): TaskState | undefined =>
  event.payload?.$case === 'statusUpdate' ? event.payload.value.status?.state : event.payload?.$case === 'task' ? event.payload.value.status?.state : undefined;

describe('A2A door: tasks', () => {
  let dataDir: string | undefined;
  let db: TestDatabase;
  let llm: FakeLlm;
  let agent: RunningApp;
  const start = () => startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'test-model' }, apiKey: API_KEY, shutdownGraceMs: 300 });

  beforeAll(async () => {
    // On disk (or a server database): the restart test reopens it.
    dataDir = usingServer() ? undefined : mkdtempSync(join(tmpdir(), 'restap-a2a-'));
    db = await createTestDatabase({ dataDir });
    llm = await startFakeLlm();
    agent = await start();
  });
  afterAll(async () => {
    await agent?.close();
    await llm?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('cancel mid-stream stops the turn (the LLM call is aborted) and ends the task canceled', async () => {
    llm.configure({ reply: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 150 });
    const client = await clientFor(agent.url);
    const events: StreamResponse[] = [];
    let cancelled: Promise<unknown> | undefined;
    for await (const event of client.sendMessageStream(sendParams(userMessage([text('talk for a long time')])), withKey())) {
      events.push(event);
      if (!cancelled && event.payload?.$case === 'artifactUpdate') {
        cancelled = client.cancelTask({ tenant: '', id: event.payload.value.taskId, metadata: undefined }, withKey());
      }
    }
    const canceled = asTask(await cancelled);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOf(events.at(-1) as StreamResponse)).toBe(TaskState.TASK_STATE_CANCELED);
    const pieces = events.filter((e) => e.payload?.$case === 'artifactUpdate').length;
    expect(pieces).toBeLessThan(40);
    await llm.waitFor(() => llm.requests.some((r) => r.aborted), 10_000);
    const stored = await client.getTask({ tenant: '', id: canceled.id }, withKey());
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    llm.configure({ reply: 'Hello from the fake LLM.', chunkDelayMs: 0 });
  });

  it('a handler failure ends the task failed with a message, no stack', async () => {
    llm.configure({ failWithStatus: 500 });
    const client = await clientFor(agent.url);
    const task = asTask(await client.sendMessage(sendParams(userMessage([text('this will fail')])), withKey()));
    llm.configure({ failWithStatus: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const message = task.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    expect(message).toMatch(/\S/);
    expect(JSON.stringify(task)).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });

  it('list tasks answers from storage, newest first, paged', async () => {
    const client = await clientFor(agent.url);
    for (const words of ['one', 'two', 'three']) await client.sendMessage(sendParams(userMessage([text(words)])), withKey());
    const query = { tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageToken: '', statusTimestampAfter: undefined };
    const first = await client.listTasks({ ...query, pageSize: 2 }, withKey());
    expect(first.tasks).toHaveLength(2);
    expect(first.nextPageToken).not.toBe('');
    const second = await client.listTasks({ ...query, pageSize: 2, pageToken: first.nextPageToken }, withKey());
    const ids = [...first.tasks, ...second.tasks].map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(first.totalSize).toBeGreaterThanOrEqual(3);
  });

  it('the task is found again after an app restart, context id and reply included', async () => {
    const client = await clientFor(agent.url);
    const task = asTask(await client.sendMessage(sendParams(userMessage([text('remember this task')])), withKey()));
    await agent.close();
    agent = await start();
    const again = await (await clientFor(agent.url)).getTask({ tenant: '', id: task.id }, withKey());
    expect(again.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(again.contextId).toBe(task.contextId);
    expect(artifactText(again)).toBe(artifactText(task));
    expect(again.history.map((m) => m.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(''))).toContain('remember this task');
  });

  it('on shutdown a running task ends failed (the agent shut down; retry), and stays so after the restart', async () => {
    llm.configure({ reply: Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 100 });
    const client = await clientFor(agent.url);
    const stream = client.sendMessageStream(sendParams(userMessage([text('talk until shutdown')])), withKey());
    const first = await stream.next();
    const taskId = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : '';
    const [rest] = await Promise.all([collect(stream), agent.close()]);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    const message = last?.$case === 'statusUpdate' ? last.value.status?.message?.parts[0]?.content : undefined;
    expect(message?.$case === 'text' && message.value).toMatch(/shut down/);
    llm.configure({ reply: 'Hello from the fake LLM.', chunkDelayMs: 0 });
    agent = await start();
    expect((await (await clientFor(agent.url)).getTask({ tenant: '', id: taskId }, withKey())).status?.state).toBe(TaskState.TASK_STATE_FAILED);
  });
});
