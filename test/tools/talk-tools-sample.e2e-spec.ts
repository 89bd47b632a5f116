import { DataSource } from 'typeorm';
import { createHash } from 'node:crypto';
import { useTestDatabase } from '../support/test-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { messagesOf, startFakeLlm, type ChatRequestBody, type FakeLlm, type FakeLlmReply } from '../support/fake-llm';
import { eventsOnly, openTalkStream, postTalk } from '../fixtures/talk-sse';

jest.setTimeout(60_000);

const KEY = 'sample-key-42';
const AUTH = { Authorization: `Bearer ${KEY}` };

/**
 * A model that, asked to reverse a text, calls text_reverse (arguments streamed 3 characters at a
 * time) and then answers with the tool's result.
 */
function reversingModel(body: ChatRequestBody): FakeLlmReply {
  const last = messagesOf(body).at(-1)!;
  if (last.role === 'tool') return { text: `Reversed: ${(JSON.parse(last.content!) as { reversed_text: string }).reversed_text}` };
  const text = /reverse '(.*)'/.exec(last.content ?? '')?.[1] ?? '';
  return { toolCalls: [{ id: `call_${text.length}`, name: 'text_reverse', arguments: JSON.stringify({ text }) }], argumentChunk: 3 };
}

describe('The sample agent lets its model call text.reverse as a tool (issue "Done when")', () => {
  const db = useTestDatabase();
  let agent: RunningApp;
  let llm: FakeLlm;
  beforeAll(async () => {
    llm = await startFakeLlm({ respond: reversingModel });
    agent = await startSample(db.target, { apiKey: KEY, llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' } });
  });
  afterAll(async () => {
    await agent?.close();
    await llm?.close();
  });

  it('discovery lists tool.start and tool.end among the talk events when the model has tools', async () => {
    const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
    const talk = catalog.capabilities.find((c: { id: string }) => c.id === 'talk');
    // approval.required too: the sample's notes.delete asks a person first (issues 35 and 40, item 12).
    expect(talk.streaming.events).toEqual(['message.start', 'message.delta', 'message.end', 'error', 'done', 'tool.start', 'tool.end', 'approval.required']);
  });

  it('offers every capability to the model as a function with its input schema', async () => {
    await (await postTalk(`${agent.url}/talk`, { message: "reverse 'x'" }, AUTH)).json();
    const tools = (llm.requests.at(-2)!.body as ChatRequestBody).tools!;
    expect(tools.map((t) => t.function.name).sort()).toEqual(['notes_create', 'notes_delete', 'notes_digest', 'notes_get', 'notes_list', 'text_echo', 'text_reverse']);
    const reverse = tools.find((t) => t.function.name === 'text_reverse')!;
    expect(reverse).toMatchObject({ type: 'function', function: { description: 'Reverse text: Returns the input text in reverse order' } });
    expect(reverse.function.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  });

  it('JSON: a model that asks text.reverse on "hello world" gets dlrow olleh, and the reply carries the answer', async () => {
    const res = await postTalk(`${agent.url}/talk`, { message: "reverse 'hello world'" }, AUTH);
    expect(res.status).toBe(200);
    expect((await res.json()).reply).toBe('Reversed: dlrow olleh');
    const [toolTurn, answerTurn] = llm.requests.slice(-2).map((r) => messagesOf(r.body));
    expect(toolTurn.at(-1)).toEqual({ role: 'user', content: "reverse 'hello world'" });
    expect(answerTurn.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_11', type: 'function', function: { name: 'text_reverse', arguments: '{"text":"hello world"}' } }] },
      { role: 'tool', tool_call_id: 'call_11', content: expect.stringContaining('"reversed_text":"dlrow olleh"') },
    ]);
  });

  it('SSE: tool.start and tool.end frame the call, then the answer streams', async () => {
    const frames = eventsOnly(await (await openTalkStream(`${agent.url}/talk`, { message: "reverse 'hello world'" }, AUTH)).rest());
    expect(frames.map((f) => f.event)).toEqual(['message.start', 'tool.start', 'tool.end', 'message.delta', 'message.delta', 'message.delta', 'message.end', 'done']);
    expect(frames[1].data).toEqual({ event: 'tool.start', id: 'call_11', name: 'text_reverse', arguments: { text: 'hello world' } });
    expect(frames[2].data).toMatchObject({ event: 'tool.end', id: 'call_11', name: 'text_reverse', ok: true });
    expect(frames[2].data!.result).toContain('"reversed_text":"dlrow olleh"');
    expect(frames.filter((f) => f.event === 'message.delta').map((f) => f.data!.text).join('')).toBe('Reversed: dlrow olleh');
  });

  it('the session\'s next turn sends the model the earlier tool call and its result (history replay)', async () => {
    const first = await (await postTalk(`${agent.url}/talk`, { message: "reverse 'abc'" }, AUTH)).json();
    llm.configure({ respond: () => ({ text: 'You asked me to reverse abc.' }) });
    try {
      const second = await (await postTalk(`${agent.url}/talk`, { message: 'What did you do?', session_id: first.session_id }, AUTH)).json();
      expect(second.reply).toBe('You asked me to reverse abc.');
    } finally {
      llm.configure({ respond: reversingModel });
    }
    const sent = messagesOf(llm.requests.at(-1)!.body).filter((m) => m.role !== 'system');
    expect(sent).toEqual([
      { role: 'user', content: "reverse 'abc'" },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'text_reverse', arguments: '{"text":"abc"}' } }] },
      { role: 'tool', tool_call_id: 'call_3', content: expect.stringContaining('"reversed_text":"cba"') },
      { role: 'assistant', content: 'Reversed: cba' },
      { role: 'user', content: 'What did you do?' },
    ]);
    const keyHash = createHash('sha256').update(first.session_id, 'utf8').digest();
    const rows = await agent.app.get(DataSource).query(
      `SELECT t.role, t.tool_steps FROM restap_turns t JOIN restap_sessions s ON s.id = t.session_id WHERE s.key_hash = $1 ORDER BY t.id`,
      [keyHash],
    );
    expect(rows.map((r: { role: string }) => r.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(rows[1].tool_steps).toEqual([{ calls: [expect.objectContaining({ id: 'call_3', name: 'text_reverse', arguments: '{"text":"abc"}', ok: true })] }]);
    expect(rows[3].tool_steps).toBeNull();
  });
});
