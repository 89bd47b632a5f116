import OpenAI from 'openai';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { openAiToolLoop } from 'nestjs-restap';
import { useTestDatabase } from '../support/test-database';
import { messagesOf, startFakeLlm, type ChatRequestBody, type FakeLlm, type FakeLlmReply } from '../support/fake-llm';
import { startTalkFixture, type TalkFixture } from '../fixtures/talk-app';
import { eventsOnly, openTalkStream, postTalk, type SseFrame } from '../fixtures/talk-sse';
import { configureToolsFixture, FIXTURE_API_KEY, FixtureKeyGuard, OrdersController } from '../fixtures/tools-app';

jest.setTimeout(60_000);

type Step = FakeLlmReply | ((body: ChatRequestBody) => FakeLlmReply);

/** A model that answers with these messages in turn (the last one for every later request). */
const script = (...steps: Step[]): ((body: ChatRequestBody) => FakeLlmReply) => {
  let i = 0;
  return (body) => {
    const step = steps[Math.min(i++, steps.length - 1)];
    return typeof step === 'function' ? step(body) : step;
  };
};

/** The model's final answer: every tool result it was given, so the reply shows what it saw. */
const reportResults = (body: ChatRequestBody): FakeLlmReply => ({
  text: messagesOf(body).filter((m) => m.role === 'tool').map((m) => m.content).join(' | '),
});

const call = (id: string, name: string, args: unknown): { id: string; name: string; arguments: string } => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});

const KEY = { 'X-API-Key': FIXTURE_API_KEY };
const toolFrames = (frames: SseFrame[]): SseFrame[] => frames.filter((f) => f.event?.startsWith('tool.'));

async function storedAssistant(app: TalkFixture, sessionId: string): Promise<{ status: string; tool_steps: unknown }> {
  const keyHash = createHash('sha256').update(sessionId, 'utf8').digest();
  const rows = await app.app.get(DataSource).query(
    `SELECT t.status, t.tool_steps FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 AND t.role = 'assistant' AND t.status <> 'open'`,
    [keyHash],
  );
  return rows[0];
}

describe('openAiToolLoop: the model calls the app\'s capabilities through ctx.tools', () => {
  const db = useTestDatabase({ onDisk: true });
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm?.close());

  const startAgent = async (talk: Record<string, unknown>): Promise<TalkFixture> => {
    const app = await startTalkFixture(db.target, { controllers: [OrdersController], providers: [FixtureKeyGuard], configure: configureToolsFixture, talk });
    const client = new OpenAI({ baseURL: llm.baseUrl, apiKey: 'sk-test', maxRetries: 0 });
    app.brain.behaviour = (ctx) => openAiToolLoop(ctx, { client, model: 'fake-model' });
    return app;
  };

  describe('with tools on', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startAgent({ toolTimeoutMs: 1000 });
    });
    afterAll(() => app?.close());

    it('offers every capability but the tool:false one, and discovery lists tool.start and tool.end', async () => {
      llm.configure({ respond: script({ text: 'hi' }) });
      await (await postTalk(app.talkUrl, { message: 'hi' })).json();
      const names = (llm.requests.at(-1)!.body as ChatRequestBody).tools!.map((t) => t.function.name);
      expect(names).toEqual(['orders_get', 'orders_create', 'orders_wrapped', 'orders_teapot', 'orders_closed', 'orders_crash', 'orders_slow']);
      const getOrder = (llm.requests.at(-1)!.body as ChatRequestBody).tools![0].function.parameters;
      expect(getOrder).toEqual({ type: 'object', properties: { id: { type: 'integer' }, verbose: { type: 'string' } }, required: ['id'] });
      const talk = (await (await fetch(`${app.url}/.well-known/restap.json`)).json()).capabilities.find((c: { id: string }) => c.id === 'talk');
      expect(talk.streaming.events).toEqual(expect.arrayContaining(['tool.start', 'tool.end']));
    });

    it('runs two calls of one message in parallel (arguments streamed in interleaved pieces): both start before either ends', async () => {
      llm.configure({ respond: script({ toolCalls: [call('c1', 'orders_slow', { ms: 300 }), call('c2', 'orders_get', { id: 5 })], argumentChunk: 2 }, reportResults) });
      const started = Date.now();
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'two things' }, KEY)).rest());
      expect(toolFrames(frames).map((f) => `${f.event} ${f.data!.id}`)).toEqual(['tool.start c1', 'tool.start c2', 'tool.end c2', 'tool.end c1']);
      expect(toolFrames(frames)[0].data).toEqual({ event: 'tool.start', id: 'c1', name: 'orders_slow', arguments: { ms: 300 } });
      expect(toolFrames(frames)[3].data).toEqual({ event: 'tool.end', id: 'c1', name: 'orders_slow', ok: true, result: '{"waited":300}' });
      expect(Date.now() - started).toBeLessThan(5000);
      const fed = messagesOf(llm.requests.at(-1)!.body).slice(-3);
      expect(fed).toEqual([
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'orders_slow', arguments: '{"ms":300}' } },
            { id: 'c2', type: 'function', function: { name: 'orders_get', arguments: '{"id":5}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"waited":300}' },
        { role: 'tool', tool_call_id: 'c2', content: '{"id":5,"item":"tea","quantity":2,"verbose":false}' },
      ]);
      expect(frames.filter((f) => f.event === 'message.delta').map((f) => f.data!.text).join('')).toBe('{"waited":300} | {"id":5,"item":"tea","quantity":2,"verbose":false}');
    });

    it('a guarded capability is refused through the model when the caller lacks the key, as over HTTP', async () => {
      expect((await fetch(`${app.url}/orders/5`)).status).toBe(401);
      llm.configure({ respond: script({ toolCalls: [call('g1', 'orders_get', { id: 5 })] }, reportResults) });
      const frames = eventsOnly(await (await openTalkStream(app.talkUrl, { message: 'read order 5' })).rest());
      expect(toolFrames(frames)[1].data).toEqual({ event: 'tool.end', id: 'g1', name: 'orders_get', ok: false, result: 'Error 401 unauthorized: A valid X-API-Key is required.' });
      expect(frames.at(-1)!.event).toBe('done');
    });

    it.each([
      ['invalid JSON arguments', call('i1', 'orders_create', '{"item": "tea", '), /^Error 400 invalid_arguments: The arguments of orders_create are not valid JSON/],
      ['arguments the ValidationPipe refuses', call('i2', 'orders_create', { item: '', quantity: 99 }), /^Error 400 bad_request: item should not be empty; quantity must not be greater than 10$/],
      ['an unknown tool name', call('i3', 'orders_delete', { id: 1 }), /^Error 404 unknown_tool: There is no tool named 'orders_delete'\. Tools: orders_get, /],
      ['a tool that throws', call('i4', 'orders_crash', { item: 'tea', quantity: 1 }), /^Error 500 internal_server_error: Internal server error$/],
      ['a tool past talk.toolTimeoutMs', call('i5', 'orders_slow', { ms: 3000 }), /^Error 504 tool_timeout: orders_slow did not answer within 1000 ms\.$/],
    ])('failure is information: %s becomes the tool result, and the turn still answers (JSON)', async (_name, asked, expected) => {
      llm.configure({ respond: script({ toolCalls: [asked] }, reportResults) });
      const res = await postTalk(app.talkUrl, { message: 'try it' });
      expect(res.status).toBe(200);
      const { reply } = await res.json();
      expect(reply).toMatch(expected);
      expect(reply).not.toMatch(/hunter2|\.ts:\d+/);
      expect(messagesOf(llm.requests.at(-1)!.body).at(-1)).toEqual({ role: 'tool', tool_call_id: asked.id, content: reply });
    });

    it('after maxSteps (5) rounds of tool calls the model is asked once more without tools', async () => {
      const before = llm.requests.length;
      llm.configure({ respond: (body) => (body.tools ? { toolCalls: [call(`m${llm.requests.length}`, 'orders_get', { id: 1 })] } : { text: 'no more tools' }) });
      const { reply } = await (await postTalk(app.talkUrl, { message: 'loop forever' }, KEY)).json();
      expect(reply).toBe('no more tools');
      const sent = llm.requests.slice(before).map((r) => (r.body as ChatRequestBody).tools !== undefined);
      expect(sent).toEqual([true, true, true, true, true, false]);
    });

    it('a client that leaves aborts the loop and the call in flight; the turn is stored aborted with its steps', async () => {
      llm.configure({ respond: script({ toolCalls: [call('a1', 'orders_get', { id: 2 })] }, { toolCalls: [call('a2', 'orders_slow', { ms: 900 })] }, reportResults) });
      const stream = await openTalkStream(app.talkUrl, { message: 'slow please' }, KEY);
      const sessionId = (await stream.next())!.data!.session_id as string;
      for (let f = await stream.next(); f && !(f.event === 'tool.start' && f.data!.id === 'a2'); f = await stream.next());
      stream.abort();
      const requestsBefore = llm.requests.length;
      const stored = await waitFor(() => storedAssistant(app, sessionId));
      expect(stored.status).toBe('aborted');
      expect(stored.tool_steps).toEqual([
        { calls: [{ id: 'a1', name: 'orders_get', arguments: '{"id":2}', ok: true, result: '{"id":2,"item":"tea","quantity":2,"verbose":false}' }] },
        { calls: [{ id: 'a2', name: 'orders_slow', arguments: '{"ms":900}', ok: false, result: 'Error 499 aborted: the turn ended before the tool answered.' }] },
      ]);
      await new Promise((r) => setTimeout(r, 1200));
      expect(llm.requests.length).toBe(requestsBefore); // the loop did not go on to ask the model again
    });
  });

  describe('with talk.tools: false', () => {
    let app: TalkFixture;
    beforeAll(async () => {
      app = await startAgent({ tools: false });
    });
    afterAll(() => app?.close());

    it('the model gets no tools, ctx.tools is empty, and discovery lists no tool events', async () => {
      llm.configure({ respond: script({ text: 'plain answer' }) });
      expect((await (await postTalk(app.talkUrl, { message: 'hi' })).json()).reply).toBe('plain answer');
      expect((llm.requests.at(-1)!.body as ChatRequestBody).tools).toBeUndefined();
      expect((await app.brain.lastContext()).tools.list).toEqual([]);
      const talk = (await (await fetch(`${app.url}/.well-known/restap.json`)).json()).capabilities.find((c: { id: string }) => c.id === 'talk');
      expect(talk.streaming.events).toEqual(['message.start', 'message.delta', 'message.end', 'error', 'done']);
    });
  });
});

async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('waitFor: nothing within the time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
