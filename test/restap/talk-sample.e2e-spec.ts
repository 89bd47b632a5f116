import { SYSTEM_PROMPT } from '../../apps/sample-agent/src/app.module';
import { useTestDatabase } from '../support/test-database';
import { RunningApp, startSample } from '../support/sample-app';
import { FakeLlm, startFakeLlm } from '../support/fake-llm';
import { eventually, storedTurns } from '../fixtures/talk-app';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';

// Jest ignores the e2e project's testTimeout; PGlite alone can take 8 s to start.
jest.setTimeout(60_000);

/** The talk entry of the spec's catalog example, verbatim (spec, "The Catalog Document"). */
const SPEC_TALK_CAPABILITY = {
  id: 'talk',
  title: 'Talk to agent',
  method: 'POST',
  endpoint: '/talk',
  description: 'Send messages to the agent (triggers LLM processing)',
  output_formats: ['application/json', 'text/event-stream'],
  streaming: { supported: true, transport: 'sse', events: ['message.start', 'message.delta', 'message.end', 'error', 'done'] },
  sessions: { supported: true },
};

const deltas = (frames: Awaited<ReturnType<typeof eventsOnly>>): string[] =>
  frames.filter((f) => f.event === 'message.delta').map((f) => f.data?.text as string);

describe('Sample agent /talk', () => {
  const db = useTestDatabase({ onDisk: true });

  describe('offline (no LLM_BASE_URL)', () => {
    let agent: RunningApp;
    beforeAll(async () => {
      agent = await startSample(db.target);
    });
    afterAll(() => agent?.close());

    it('advertises the talk capability exactly as the spec\'s catalog example', async () => {
      const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
      const talk = catalog.capabilities.find((c: { id: string }) => c.id === 'talk');
      expect(talk).toEqual(SPEC_TALK_CAPABILITY);
      expect(Object.keys(talk)).toEqual(Object.keys(SPEC_TALK_CAPABILITY));
    });

    it('says plainly it is offline, how to set an LLM, and what the agent can do (from its catalog)', async () => {
      const res = await postTalk(agent.url + '/talk', { message: 'What can you do?' });
      expect(res.status).toBe(200);
      const { reply, session_id } = await res.json();
      expect(session_id).toBeDefined();
      expect(reply).toMatch(/running offline/);
      expect(reply).toContain('LLM_BASE_URL');
      expect(reply).toContain('LLM_MODEL');
      expect(reply).toContain('Echo text back (POST /text/echo): Returns the input text unchanged');
      expect(reply).toContain('Reverse text (POST /text/reverse)');
      expect(reply).toContain('/.well-known/restap.json');
    });

    it('streams the offline reply word by word', async () => {
      const frames = eventsOnly(await (await openTalkStream(`${agent.url}/talk`, { message: 'hi' })).rest());
      const words = deltas(frames);
      expect(words.length).toBeGreaterThan(30);
      for (const word of words) expect(word).toMatch(/^\S+\s*$/);
      expect(frames.at(-1)?.event).toBe('done');
    });
  });

  describe('with an OpenAI-compatible LLM (a local fake server over real HTTP and SSE)', () => {
    let agent: RunningApp;
    let llm: FakeLlm;
    beforeAll(async () => {
      llm = await startFakeLlm();
      agent = await startSample(db.target, { llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' } });
    });
    afterAll(async () => {
      await agent?.close();
      await llm?.close();
    });
    beforeEach(() => llm.configure({ reply: 'Hello from the fake LLM.', chunkDelayMs: 0, firstChunkDelayMs: 0, failWithStatus: undefined }));

    it('calls chat completions with streaming, the model, the key, and ctx.toMessages()', async () => {
      const res = await postTalk(`${agent.url}/talk`, { message: 'Say hello' });
      expect(await res.json()).toMatchObject({ reply: 'Hello from the fake LLM.' });
      const call = llm.requests.at(-1)!;
      expect(call.method).toBe('POST');
      expect(call.path).toBe('/v1/chat/completions');
      expect(call.headers.authorization).toBe('Bearer sk-test');
      expect(call.body).toMatchObject({
        model: 'test-model',
        stream: true,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: 'Say hello' },
        ],
      });
    });

    it('relays the upstream stream as message.delta frames, chunk for chunk', async () => {
      llm.configure({ reply: 'one two three four' });
      const frames = eventsOnly(await (await openTalkStream(`${agent.url}/talk`, { message: 'count' })).rest());
      expect(deltas(frames)).toEqual(['one ', 'two ', 'three ', 'four']);
      expect(frames.map((f) => f.event)).toEqual(['message.start', 'message.delta', 'message.delta', 'message.delta', 'message.delta', 'message.end', 'done']);
    });

    it('sends the conversation history on the next turn of the session', async () => {
      llm.configure({ reply: (body) => `You said ${body.messages?.length} messages.` });
      const first = await (await postTalk(`${agent.url}/talk`, { message: 'My name is Ada.' })).json();
      await postTalk(`${agent.url}/talk`, { message: 'Who am I?' }, { 'Restap-Session-Id': first.session_id });
      expect((llm.requests.at(-1)!.body as { messages: unknown[] }).messages).toEqual([
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'You said 2 messages.' },
        { role: 'user', content: 'Who am I?' },
      ]);
    });

    it('an upstream failure is an error event then done (SSE) or 502 agent_error (JSON), without upstream details', async () => {
      llm.configure({ failWithStatus: 401 });
      const stream = await openTalkStream(`${agent.url}/talk`, { message: 'hi' });
      const frames = eventsOnly(await stream.rest());
      expect(frames.map((f) => f.event)).toEqual(['message.start', 'error', 'done']);
      expect(stream.raw()).not.toContain('Simulated failure');
      const res = await postTalk(`${agent.url}/talk`, { message: 'hi' });
      expect(res.status).toBe(502);
      expect((await res.json()).error).toBe('agent_error');
    });

    it('a client that disconnects cancels the upstream request, and the turn is stored as aborted', async () => {
      llm.configure({ reply: Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '), chunkDelayMs: 50 });
      const before = llm.requests.length;
      const stream = await openTalkStream(`${agent.url}/talk`, { message: 'talk for a while' });
      const start = await stream.next();
      await stream.next();
      await stream.next();
      stream.abort();
      const upstream = await eventually(async () => llm.requests[before], Boolean);
      await llm.waitFor(() => upstream.aborted, 1000);
      expect(upstream.aborted).toBe(true);
      const sent = upstream.chunksSent;
      expect(sent).toBeLessThan(100);
      const turns = await eventually(() => storedTurns(agent, start?.data?.session_id as string), (t) => t.length === 2);
      expect(turns[1]).toMatchObject({ role: 'assistant', status: 'aborted' });
      expect(turns[1].content).toMatch(/^w0 w1 /);
    });
  });
});
