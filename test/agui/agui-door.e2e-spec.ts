import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type BaseEvent } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, decode } from '@ag-ui/proto';
import { useTestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { messagesOf, startFakeLlm, type FakeLlm } from '../support/fake-llm';

jest.setTimeout(60_000);

const KEY = 'sample-key-39b';
const AUTH = { Authorization: `Bearer ${KEY}` };

/** A RunAgentInput with one user message. */
const input = (text: unknown, threadId: string = randomUUID(), extra: Record<string, unknown> = {}) => ({
  threadId,
  runId: randomUUID(),
  messages: [{ id: 'u1', role: 'user', content: text }],
  tools: [],
  context: [],
  ...extra,
});

/** The SSE `data:` events of a response body. */
async function sseEvents(res: Response): Promise<Array<BaseEvent & Record<string, unknown>>> {
  const text = await res.text();
  return text.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => JSON.parse(block.slice(6)));
}

describe('The AG-UI door: input, sessions, guards, errors and encodings (issue 39, items 2, 3, 6)', () => {
  const db = useTestDatabase();
  let sample: RunningApp;
  let llm: FakeLlm;
  let url: string;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  beforeAll(async () => {
    llm = await startFakeLlm();
    sample = await startSample(db.target, { apiKey: KEY, heartbeatMs: 100, llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' } });
    url = `${sample.url}/ag-ui`;
  });
  afterAll(async () => {
    await sample?.close();
    await llm?.close();
  });

  it('item 6: without the API key the host\'s guard answers 401 JSON before anything runs', async () => {
    const before = llm.requests.length;
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(input('hi')) });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(await res.json()).sort()).toEqual(['error', 'message']);
    expect(llm.requests.length).toBe(before);
    // And HttpAgent's run fails with it rather than hanging.
    const agent = new HttpAgent({ url });
    agent.addMessage({ id: 'u1', role: 'user', content: 'hi' });
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined); // HttpAgent logs the failure it rethrows
    try {
      await expect(agent.runAgent()).rejects.toThrow(/HTTP 401: \{"error":"unauthorized"/);
    } finally {
      quiet.mockRestore();
    }
  });

  it('item 2: a body that is not a RunAgentInput is 400 invalid_request naming the field, validated by @ag-ui/core\'s schema', async () => {
    const res = await post({ threadId: randomUUID(), messages: [] });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', message: expect.stringMatching(/^The body is not an AG-UI RunAgentInput: runId: /) });
    const bad = await post({ ...input('hi'), messages: [{ id: 'u1', role: 'robot', content: 'x' }] });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/messages\.0/);
  });

  it('item 2: a run whose last message is not the user\'s, or whose message is blank, is 400 (core\'s one turn rule)', async () => {
    const assistantLast = await post({ ...input('hi'), messages: [{ id: 'u1', role: 'user', content: 'hi' }, { id: 'a1', role: 'assistant', content: 'yo' }] });
    expect(assistantLast.status).toBe(400);
    expect((await assistantLast.json()).message).toMatch(/last message must be the user's/);
    const blank = await post(input('   '));
    expect(await blank.json()).toEqual({ error: 'invalid_request', message: 'Field "message" must not be empty or only whitespace.' });
    const nul = await post(input('a\u0000b'));
    expect(nul.status).toBe(400);
  });

  it('item 2: user content as text parts is joined; a media part is refused (this agent takes text)', async () => {
    const parts = await post(input([{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }]));
    expect(parts.status).toBe(200);
    await sseEvents(parts);
    expect(messagesOf(llm.requests.at(-1)!.body).at(-1)).toEqual({ role: 'user', content: 'one\ntwo' });
    const image = await post(input([{ type: 'image', source: { type: 'url', value: 'https://example.com/a.png' } }]));
    expect(image.status).toBe(400);
    expect((await image.json()).message).toMatch(/takes text/);
  });

  it('item 6: not JSON is 415, a GET is 405 with Allow: POST, malformed JSON 400 — all JSON errors', async () => {
    const text = await post('hello', { 'Content-Type': 'text/plain' });
    expect(text.status).toBe(415);
    expect((await text.json()).error).toBe('unsupported_media_type');
    const get = await fetch(url, { headers: AUTH });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await get.json()).error).toBe('method_not_allowed');
    const broken = await post('{"threadId":');
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toBe('invalid_json');
  });

  it('item 3: a threadId outside the session rules is 400 invalid_session_id; a UUID is a valid session id', async () => {
    const res = await post(input('hi', 'short'));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_session_id');
    const ok = await post(input('hi', randomUUID()));
    expect(ok.status).toBe(200);
    expect((await sseEvents(ok)).at(-1)!.type).toBe(EventType.RUN_FINISHED);
  });

  it('item 3: an empty threadId starts a new session whose minted id RUN_STARTED and RUN_FINISHED carry; running on it continues', async () => {
    const events = await sseEvents(await post(input('Remember 42', '')));
    const threadId = events[0].threadId as string;
    expect(threadId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, threadId });
    const before = llm.requests.length;
    await sseEvents(await post(input('What number?', threadId)));
    expect(messagesOf(llm.requests[before].body).filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Remember 42', 'What number?']);
  });

  it('item 3: the same thread is the same session on /talk: a turn there sees the AG-UI run in its history', async () => {
    const threadId = randomUUID();
    await sseEvents(await post(input('Said over AG-UI', threadId)));
    const before = llm.requests.length;
    const talk = await fetch(`${sample.url}/talk`, { method: 'POST', headers: { ...AUTH, 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'And over /talk', session_id: threadId }) });
    expect(talk.status).toBe(200);
    expect(messagesOf(llm.requests[before].body).filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Said over AG-UI', 'And over /talk']);
  });

  it('item 6: a turn that fails ends with RUN_ERROR carrying our error code and a client-safe message, never a stack', async () => {
    llm.configure({ failWithStatus: 500 });
    try {
      const events = await sseEvents(await post(input('hi')));
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.TEXT_MESSAGE_START, EventType.RUN_ERROR]);
      expect(events[2]).toEqual({ type: EventType.RUN_ERROR, code: 'agent_error', message: expect.any(String) });
      expect(events[2].message).not.toMatch(/\n\s+at |Simulated failure/);
    } finally {
      llm.configure({ failWithStatus: undefined });
    }
  });

  it('a quiet SSE run carries heartbeat comments (talk.heartbeatMs), which HttpAgent skips', async () => {
    llm.configure({ firstChunkDelayMs: 350 });
    try {
      const raw = await (await post(input('hi'))).text();
      expect(raw).toContain(': heartbeat\n\n');
      const agent = new HttpAgent({ url, headers: AUTH });
      agent.addMessage({ id: 'u1', role: 'user', content: 'hi' });
      const events: BaseEvent[] = [];
      await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
      expect(events.at(-1)!.type).toBe(EventType.RUN_FINISHED);
      expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello from the fake LLM.' });
    } finally {
      llm.configure({ firstChunkDelayMs: 0 });
    }
  });

  it('item 2: Accept: application/vnd.ag-ui.event+proto gets the same run in AG-UI\'s protobuf encoding', async () => {
    const res = await post(input('hi'), { Accept: AGUI_MEDIA_TYPE });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(AGUI_MEDIA_TYPE);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const events: BaseEvent[] = [];
    for (let at = 0; at < bytes.length; ) {
      const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, false);
      events.push(decode(bytes.subarray(at + 4, at + 4 + length)));
      at += 4 + length;
    }
    expect(events[0].type).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)!.type).toBe(EventType.RUN_FINISHED);
    expect(events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => (e as BaseEvent & { delta: string }).delta).join('')).toBe('Hello from the fake LLM.');
  });
});
