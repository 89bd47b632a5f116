import { randomUUID } from 'node:crypto';
import { buildResumeArray, HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent, type Interrupt, type Tool } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, decode } from '@ag-ui/proto';
import { useTestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { messagesOf, startFakeLlm, type ChatMessage, type ChatRequestBody, type FakeLlm, type FakeLlmReply } from '../support/fake-llm';
import { readAll } from '../fixtures/news-http';

// Issue 39, items 4 and 5: frontend tools over two runs, and approvals as AG-UI interrupts. The
// real sample (RESTAP_REQUIRE_APPROVAL=text.reverse) on PostgreSQL, driven by @ag-ui/client's
// HttpAgent; only the model is faked. text.reverse publishes a job.completed news item each time
// it really runs: the feed counts the runs.
jest.setTimeout(60_000);

const KEY = 'agui-tools-key-39';
const AUTH = { Authorization: `Bearer ${KEY}` };
const APR = /^apr_[A-Za-z0-9_-]{32}$/;

/** The client's frontend tool, as CopilotKit sends a frontend action. */
const WEATHER: Tool = {
  name: 'get_weather',
  description: 'Shows the weather of a city in the page',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The tool a tool message answers, by its call id. */
function toolNameOf(messages: ChatMessage[], callId: string | undefined): string | undefined {
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.id === callId) return c.function.name;
  return undefined;
}

/**
 * Asked for the weather in a city, calls the client's get_weather; asked to reverse a text, calls
 * text_reverse; given a tool's result, says what came of it; else echoes.
 */
function model(body: ChatRequestBody): FakeLlmReply {
  const messages = messagesOf(body);
  const last = messages.at(-1)!;
  if (last.role === 'tool') {
    const content = last.content ?? '';
    if (toolNameOf(messages, last.tool_call_id) === 'get_weather') return { text: `Weather: ${content}` };
    if (content.startsWith('Error')) return { text: `The call did not run: ${content.slice(0, 40)}` };
    return { text: `Reversed: ${(JSON.parse(content) as { reversed_text: string }).reversed_text}` };
  }
  const city = /weather in (\w+)/.exec(last.content ?? '')?.[1];
  if (city) return { toolCalls: [{ id: `call_weather_${city}`, name: 'get_weather', arguments: JSON.stringify({ city }) }] };
  const text = /reverse '(.*)'/.exec(last.content ?? '')?.[1];
  if (text !== undefined) return { toolCalls: [{ id: `call_rev_${text.length}`, name: 'text_reverse', arguments: JSON.stringify({ text }) }] };
  return { text: `You said: ${last.content}` };
}

type Finished = { outcome: 'success'; pendingToolCallIds: string[] } | { outcome: 'interrupt'; interrupts: Interrupt[] } | { outcome: 'cancelled' };

/** One run with the official client: its events and how RUN_FINISHED ended it (as HttpAgent reads it). */
async function run(agent: HttpAgent, parameters: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<{ events: Array<BaseEvent & Record<string, unknown>>; finished?: Finished }> {
  const events: Array<BaseEvent & Record<string, unknown>> = [];
  let finished: Finished | undefined;
  await agent.runAgent(parameters, {
    onEvent: ({ event }) => void events.push(event as BaseEvent & Record<string, unknown>),
    onRunFinishedEvent: (params) => {
      finished =
        params.outcome === 'success'
          ? { outcome: 'success', pendingToolCallIds: params.pendingToolCallIds }
          : params.outcome === 'interrupt'
            ? { outcome: 'interrupt', interrupts: params.interrupts }
            : { outcome: 'cancelled' };
    },
  });
  return { events, finished };
}

const say = (agent: HttpAgent, text: string): void => agent.addMessage({ id: randomUUID(), role: 'user', content: text });
const types = (events: BaseEvent[]): string[] => events.map((e) => e.type);
const deltas = (events: Array<BaseEvent & Record<string, unknown>>): string =>
  events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta as string).join('');
/** The conversation the model was sent, less the system prompt. */
const seen = (request: { body: unknown }): ChatMessage[] => messagesOf(request.body).filter((m) => m.role !== 'system');

describe('The AG-UI door: frontend tools and approvals as interrupts (issue 39, items 4 and 5)', () => {
  const db = useTestDatabase();
  let sample: RunningApp;
  let llm: FakeLlm;
  let url: string;
  const agent = (): HttpAgent => new HttpAgent({ url, headers: AUTH });
  const post = (body: unknown) => fetch(url, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify(body) });
  const talk = (sessionId: string, message: string) =>
    fetch(`${sample.url}/talk`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: JSON.stringify({ message, session_id: sessionId }) });
  /** Runs of text.reverse so far: each real run publishes one job.completed item. */
  const reversals = async (): Promise<number> => (await readAll(sample.url, AUTH)).filter((i) => i.type === 'job.completed').length;

  beforeAll(async () => {
    llm = await startFakeLlm({ respond: model });
    sample = await startSample(db.target, { apiKey: KEY, llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' }, requireApproval: ['text.reverse'] });
    url = `${sample.url}/ag-ui`;
  });
  afterAll(async () => {
    await sample?.close();
    await llm?.close();
  });

  describe('item 4: frontend tools', () => {
    it("are offered to the model beside the capabilities; the model's call ends the run: TOOL_CALL_START/ARGS/END, no result, RUN_FINISHED success naming it pending", async () => {
      const client = agent();
      say(client, 'What is the weather in Paris?');
      const before = llm.requests.length;
      const { events, finished } = await run(client, { tools: [WEATHER] });
      // One model request: the run ended on the call, the model was not asked again.
      expect(llm.requests.length - before).toBe(1);
      const offered = (llm.requests[before].body as ChatRequestBody).tools!.map((t) => t.function.name);
      expect(offered).toEqual(expect.arrayContaining(['text_reverse', 'text_echo', 'get_weather']));
      expect((llm.requests[before].body as ChatRequestBody).tools!.find((t) => t.function.name === 'get_weather')!.function).toEqual({
        name: 'get_weather',
        description: WEATHER.description,
        parameters: WEATHER.parameters,
      });
      expect(types(events)).toEqual([
        EventType.RUN_STARTED,
        EventType.TEXT_MESSAGE_START,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TEXT_MESSAGE_END,
        EventType.RUN_FINISHED,
      ]);
      expect(events[2]).toMatchObject({ toolCallId: 'call_weather_Paris', toolCallName: 'get_weather' });
      expect(JSON.parse(events[3].delta as string)).toEqual({ city: 'Paris' });
      expect(events.at(-1)!.outcome).toEqual({ type: 'success', pendingToolCallIds: ['call_weather_Paris'] });
      expect(finished).toEqual({ outcome: 'success', pendingToolCallIds: ['call_weather_Paris'] });
      // HttpAgent holds the call on the assistant's message, for the page to run.
      expect(client.messages.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_weather_Paris', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
    });

    it('round trip over two runs: the next run carries the result as a tool message and the model continues with it', async () => {
      const client = agent();
      say(client, 'What is the weather in Oslo?');
      await run(client, { tools: [WEATHER] });
      client.addMessage({ id: randomUUID(), role: 'tool', toolCallId: 'call_weather_Oslo', content: 'Snow, -3 °C' });
      const before = llm.requests.length;
      const { events, finished } = await run(client, { tools: [WEATHER] });
      expect(llm.requests.length - before).toBe(1);
      // The call (name and arguments from storage, not from the client) and the client's result, once.
      expect(seen(llm.requests[before])).toEqual([
        { role: 'user', content: 'What is the weather in Oslo?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_weather_Oslo', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
        { role: 'tool', tool_call_id: 'call_weather_Oslo', content: 'Snow, -3 °C' },
      ]);
      expect(deltas(events)).toBe('Weather: Snow, -3 °C');
      expect(types(events)).not.toContain(EventType.TOOL_CALL_START);
      expect(finished).toEqual({ outcome: 'success', pendingToolCallIds: [] });
      expect(client.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Weather: Snow, -3 °C' });
    });

    it('the stored history records the pending call and then its result: /talk on the same session sees a coherent conversation', async () => {
      const client = agent();
      say(client, 'What is the weather in Rome?');
      await run(client, { tools: [WEATHER] });
      const call = { id: 'call_weather_Rome', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } };
      // Before the client answered: the call, and a result saying none came back yet.
      let before = llm.requests.length;
      expect((await talk(client.threadId, 'Still there?')).status).toBe(200);
      expect(seen(llm.requests[before])).toEqual([
        { role: 'user', content: 'What is the weather in Rome?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_weather_Rome', content: expect.stringMatching(/^Error 202 client_tool_pending: /) },
        { role: 'user', content: 'Still there?' },
      ]);
      // The client's result arrives in a later run (after the /talk turn): the call moves to it, never shown twice.
      client.addMessage({ id: randomUUID(), role: 'tool', toolCallId: 'call_weather_Rome', content: 'Sunny, 24 °C' });
      await run(client, { tools: [WEATHER] });
      before = llm.requests.length;
      expect((await talk(client.threadId, 'Thanks')).status).toBe(200);
      expect(seen(llm.requests[before])).toEqual([
        { role: 'user', content: 'What is the weather in Rome?' },
        { role: 'user', content: 'Still there?' },
        { role: 'assistant', content: 'You said: Still there?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_weather_Rome', content: 'Sunny, 24 °C' },
        { role: 'assistant', content: 'Weather: Sunny, 24 °C' },
        { role: 'user', content: 'Thanks' },
      ]);
    });

    it('the naming rule: a frontend tool named as a capability (text_reverse), a name a model cannot take, or a name given twice is 400 invalid_request; the model is not asked', async () => {
      const before = llm.requests.length;
      const input = (tools: unknown[]) => ({ threadId: randomUUID(), runId: randomUUID(), messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools, context: [] });
      const shadow = await post(input([{ name: 'text_reverse', description: 'mine' }]));
      expect(shadow.status).toBe(400);
      expect(await shadow.json()).toEqual({ error: 'invalid_request', message: expect.stringMatching(/"text_reverse" has the name of one of this agent's capabilities/) });
      const spaced = await post(input([{ name: 'get weather', description: 'x' }]));
      expect(spaced.status).toBe(400);
      expect((await spaced.json()).message).toMatch(/\^\[a-zA-Z0-9_-\]\{1,64\}\$/);
      const twice = await post(input([WEATHER, WEATHER]));
      expect(twice.status).toBe(400);
      expect((await twice.json()).message).toMatch(/offered twice/);
      expect(llm.requests.length).toBe(before);
    });

    it('a run ending on a tool message that answers no call the thread waits for is 400: nothing to continue', async () => {
      const client = agent();
      say(client, 'Hello');
      await run(client);
      const res = await post({
        threadId: client.threadId,
        runId: randomUUID(),
        messages: [...client.messages, { id: 't1', role: 'tool', toolCallId: 'call_never_made', content: 'forged' }],
        tools: [WEATHER],
        context: [],
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_request', message: expect.stringMatching(/nothing to continue/) });
      // On a thread the client starts here (empty threadId), there is no conversation to continue.
      const fresh = await post({ threadId: '', runId: randomUUID(), messages: [{ id: 't1', role: 'tool', toolCallId: 'call_x', content: 'x' }], tools: [], context: [] });
      expect(fresh.status).toBe(400);
    });
  });

  describe('item 5: approvals as AG-UI interrupts', () => {
    /** A run whose model calls the approval-gated text.reverse: the client and the interrupt it ended on. */
    async function asked(text: string): Promise<{ client: HttpAgent; interrupt: Interrupt; events: Array<BaseEvent & Record<string, unknown>> }> {
      const client = agent();
      say(client, `reverse '${text}'`);
      const { events, finished } = await run(client);
      expect(finished?.outcome).toBe('interrupt');
      return { client, interrupt: (finished as { interrupts: Interrupt[] }).interrupts[0], events };
    }

    it("the gated call ends the run with RUN_FINISHED's interrupt outcome (@ag-ui/core 1.0 Interrupt): it did not run, the model was not asked again", async () => {
      const runs = await reversals();
      const before = llm.requests.length;
      const { client, interrupt, events } = await asked('hello world');
      expect(llm.requests.length - before).toBe(1);
      expect(await reversals()).toBe(runs);
      expect(interrupt).toEqual({
        id: expect.stringMatching(APR),
        reason: 'tool_approval',
        message: 'Allow "Reverse text" (text.reverse) with {"text":"hello world"}?',
        toolCallId: 'call_rev_11',
        responseSchema: { type: 'object', required: ['decision'], additionalProperties: false, properties: { decision: { enum: ['approve', 'deny'] } } },
        expiresAt: expect.any(String),
        metadata: { capability: 'text.reverse', arguments: { text: 'hello world' } },
      });
      expect(Date.parse(interrupt.expiresAt!)).toBeGreaterThan(Date.now());
      expect((events.at(-1)!.outcome as { interrupts: Interrupt[] }).interrupts).toHaveLength(1);
      // Asked as an interrupt, not in the reply's text nor as a CUSTOM event.
      expect(deltas(events)).toBe('');
      expect(types(events)).not.toContain(EventType.CUSTOM);
      expect(client.pendingInterrupts.map((i) => i.id)).toEqual([interrupt.id]);
    });

    it('resumed with {"decision": "approve"}: runs once, the model continues with its result; the same resume again is 409 and runs nothing', async () => {
      const { client, interrupt } = await asked('abc');
      const runs = await reversals();
      const resume = buildResumeArray(client.pendingInterrupts, { [interrupt.id]: { status: 'resolved', payload: { decision: 'approve' } } });
      const { events, finished } = await run(client, { resume });
      expect(finished).toEqual({ outcome: 'success', pendingToolCallIds: [] });
      expect(await reversals()).toBe(runs + 1);
      expect(deltas(events)).toBe('Reversed: cba');
      const result = events.find((e) => e.type === EventType.TOOL_CALL_RESULT)!;
      expect(result.content).toContain('"reversed_text":"cba"');
      expect(client.pendingInterrupts).toEqual([]);
      // The approval was decided: a second resume of it cannot run it again.
      const again = await post({ threadId: client.threadId, runId: randomUUID(), messages: client.messages, tools: [], context: [], resume });
      expect(again.status).toBe(409);
      expect((await again.json()).error).toBe('approval_already_decided');
      expect(await reversals()).toBe(runs + 1);
    });

    it('resumed with {"decision": "deny"}, or cancelled: never runs; the model hears it was denied', async () => {
      for (const answer of [{ status: 'resolved' as const, payload: { decision: 'deny' } }, { status: 'cancelled' as const }]) {
        const { client, interrupt } = await asked('nope');
        const runs = await reversals();
        const { events, finished } = await run(client, { resume: buildResumeArray(client.pendingInterrupts, { [interrupt.id]: answer }) });
        expect(finished?.outcome).toBe('success');
        expect(deltas(events)).toBe('The call did not run: Error 403 approval_denied: A person deni');
        expect(await reversals()).toBe(runs);
      }
    });

    it("the interrupt outcome travels in AG-UI's protobuf encoding too (Accept: application/vnd.ag-ui.event+proto)", async () => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { ...AUTH, 'Content-Type': 'application/json', Accept: AGUI_MEDIA_TYPE },
        body: JSON.stringify({ threadId: randomUUID(), runId: randomUUID(), messages: [{ id: 'u1', role: 'user', content: "reverse 'pb'" }], tools: [], context: [] }),
      });
      expect(res.headers.get('content-type')).toBe(AGUI_MEDIA_TYPE);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const events: Array<BaseEvent & Record<string, unknown>> = [];
      for (let at = 0; at < bytes.length; ) {
        const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, false);
        events.push(decode(bytes.subarray(at + 4, at + 4 + length)) as BaseEvent & Record<string, unknown>);
        at += 4 + length;
      }
      expect(events.at(-1)).toMatchObject({
        type: EventType.RUN_FINISHED,
        outcome: { type: 'interrupt', interrupts: [{ id: expect.stringMatching(APR), reason: 'tool_approval', toolCallId: 'call_rev_2', metadata: { capability: 'text.reverse', arguments: { text: 'pb' } } }] },
      });
    });

    it('/talk on the same session sees the interrupted call and the approved one with its result', async () => {
      const { client, interrupt } = await asked('xy');
      await run(client, { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'approve' } }] });
      const before = llm.requests.length;
      expect((await talk(client.threadId, 'Done?')).status).toBe(200);
      const conversation = seen(llm.requests[before]);
      expect(conversation.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user']);
      expect(conversation[2].content).toMatch(/^Error 403 approval_required: /);
      expect(conversation[4].content).toContain('"reversed_text":"yx"');
      expect(conversation[5]).toEqual({ role: 'assistant', content: 'Reversed: yx' });
    });

    it('bad resumes: a payload outside the responseSchema is 400 naming it, an unknown interrupt id 404 approval_not_found; nothing runs', async () => {
      const { client, interrupt } = await asked('bad');
      const runs = await reversals();
      const resume = (entry: unknown) => post({ threadId: client.threadId, runId: randomUUID(), messages: client.messages, tools: [], context: [], resume: [entry] });
      const odd = await resume({ interruptId: interrupt.id, status: 'resolved', payload: { decision: 'maybe' } });
      expect(odd.status).toBe(400);
      expect(await odd.json()).toEqual({ error: 'invalid_request', message: expect.stringMatching(/^resume\.0\.payload /) });
      const unknown = await resume({ interruptId: `apr_${'x'.repeat(32)}`, status: 'resolved', payload: { decision: 'approve' } });
      expect(unknown.status).toBe(404);
      expect((await unknown.json()).error).toBe('approval_not_found');
      expect(await reversals()).toBe(runs);
    });
  });
});
