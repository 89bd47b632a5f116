import { Role, TaskState } from '@a2a-js/sdk';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { API_KEY, artifactText, asTask, clientFor, collect, dataOf, sendParams, text, userMessage, withKey } from './a2a-support';

jest.setTimeout(90_000);

describe('A2A door: conversation over the sample agent', () => {
  let db: TestDatabase;
  let llm: FakeLlm;
  let agent: RunningApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    llm = await startFakeLlm({ reply: (body) => `You said: ${body.messages?.at(-1)?.content ?? ''}. History had ${(body.messages ?? []).length} messages.` });
    agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'test-model' }, apiKey: API_KEY });
  });
  afterAll(async () => {
    await agent?.close();
    await llm?.close();
    await db?.drop();
  });

  it('SendMessage: the talk handler answers; the task completes with the reply as its artifact', async () => {
    const client = await clientFor(agent.url);
    const task = asTask(await client.sendMessage(sendParams(userMessage([text('hello there')])), withKey()));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(task)).toContain('You said: hello there');
    expect(task.contextId).toMatch(/^[A-Za-z0-9._-]{16,128}$/);
  });

  it('SendStreamingMessage: task, working, the reply in several appended pieces, completed', async () => {
    const client = await clientFor(agent.url);
    const events = await collect(client.sendMessageStream(sendParams(userMessage([text('stream please')])), withKey()));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    const pieces = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact?.parts ?? [] : []));
    expect(pieces.length).toBeGreaterThan(3);
    const states = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : []));
    expect(states[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const reply = pieces.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    expect(reply).toContain('You said: stream please');
  });

  /** The fake model asks for text_reverse once, then replies. */
  const reverseThenReply = (): void =>
    llm.configure({
      respond: (body) =>
        (body.messages ?? []).some((m) => m.role === 'tool')
          ? { text: 'Reversed it for you.' }
          : { toolCalls: [{ id: 'call_1', name: 'text_reverse', arguments: JSON.stringify({ text: 'abc' }) }] },
    });

  it('SendMessage with tool steps: the answer holds the reply, and the steps as agent messages in the history', async () => {
    reverseThenReply();
    const client = await clientFor(agent.url);
    const task = asTask(await client.sendMessage(sendParams(userMessage([text('reverse abc, blocking')])), withKey()));
    llm.configure({ respond: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((a) => a.name)).toEqual(['reply']);
    expect(artifactText(task)).toBe('Reversed it for you.');
    const [asked, ...steps] = task.history;
    expect(asked.parts[0].content).toEqual({ $case: 'text', value: 'reverse abc, blocking' });
    expect(steps.map((m) => m.role)).toEqual([Role.ROLE_AGENT, Role.ROLE_AGENT]);
    expect(steps.map((m) => dataOf(m.parts))).toEqual([
      expect.objectContaining({ event: 'tool.start', name: 'text_reverse' }),
      expect.objectContaining({ event: 'tool.end', name: 'text_reverse', ok: true }),
    ]);
    // Stored as answered: read again, the same task.
    const read = await client.getTask({ tenant: '', id: task.id }, withKey());
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(read)).toBe('Reversed it for you.');
    expect(read.history.map((m) => m.messageId)).toEqual(task.history.map((m) => m.messageId));
  });

  it('a follow-up in the same contextId continues the session history (as /talk does)', async () => {
    const client = await clientFor(agent.url);
    const first = asTask(await client.sendMessage(sendParams(userMessage([text('my name is Ada')])), withKey()));
    const events = await collect(client.sendMessageStream(sendParams(userMessage([text('what is my name?')], { contextId: first.contextId })), withKey()));
    const lastLlmCall = llm.requests.filter((r) => r.path.endsWith('/chat/completions')).at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    expect(lastLlmCall.messages.map((m) => m.content)).toEqual(expect.arrayContaining(['my name is Ada', 'what is my name?']));
    const task = events.find((e) => e.payload?.$case === 'task')?.payload?.value as { contextId: string };
    expect(task.contextId).toBe(first.contextId);
  });

  it('tool steps of the agent loop arrive as working status messages, then the reply and completed', async () => {
    reverseThenReply();
    const client = await clientFor(agent.url);
    const events = await collect(client.sendMessageStream(sendParams(userMessage([text('reverse abc please')])), withKey()));
    llm.configure({ respond: undefined });
    const steps = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' && e.payload.value.status?.message ? [e.payload.value.status] : []));
    expect(steps.map((s) => s.state)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_WORKING]);
    const [start, end] = steps.map((s) => s.message?.parts ?? []);
    expect(start[0].content).toEqual({ $case: 'text', value: 'Using tool text_reverse' });
    expect(dataOf(start)).toMatchObject({ event: 'tool.start', name: 'text_reverse', arguments: { text: 'abc' } });
    expect(dataOf(end)).toMatchObject({ event: 'tool.end', name: 'text_reverse', ok: true });
    const reply = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? e.payload.value.artifact?.parts ?? [] : [])).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    expect(reply).toBe('Reversed it for you.');
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
