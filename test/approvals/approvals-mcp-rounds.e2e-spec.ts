import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { openReplicaDatabase, type ReplicaDatabase } from '../support/replica-database';
import { startSample, type RunningApp } from '../support/sample-app';
import { messagesOf, startFakeLlm, type FakeLlm } from '../support/fake-llm';
import { readAll } from '../fixtures/news-http';
import { connectClient } from '../mcp/mcp-clients';
import { reversingModel } from '../support/reversing-model';

// Issue 35, item 4 — MCP 2026-07-28 clients get the spec's input-required multi-round-trip for a
// held call: a direct tools/call of text.reverse (RESTAP_REQUIRE_APPROVAL=text.reverse) and the
// talk tool when its turn hits it. The client retries with the person's answer and the opaque
// requestState, sealed (AES-256-GCM) with RESTAP_APPROVAL_STATE_SECRET, the same on both replicas.
// Official 2.x client SDK throughout; text.reverse publishes a job.completed news item each time it runs.
jest.setTimeout(120_000);

const KEY = 'approval-rounds-key-35';
const AUTH = { Authorization: `Bearer ${KEY}` };
const SECRET = 'a-test-secret-of-at-least-32-bytes-for-35';
const APR = /^apr_[A-Za-z0-9_-]{32}$/;


type ToolResult = { isError?: boolean; content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; _meta?: Record<string, Record<string, unknown>> };
type ElicitParams = { mode?: string; message: string; requestedSchema: { properties: Record<string, { enum?: string[] }>; required?: string[] } };
type ElicitAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean | string[]> };
type InputRequired = { resultType: 'input_required'; inputRequests: Record<string, { method: string; params: ElicitParams }>; requestState: string; _meta?: Record<string, Record<string, unknown>> };

/** A 2.x client pinned to 2026-07-28 that declares form elicitation and answers each question with `answer()`. */
async function connectAsking(url: string, answer: (params: ElicitParams) => ElicitAnswer, autoFulfill = true): Promise<{ client: Client; asked: ElicitParams[] }> {
  const client = new Client({ name: 'restap-e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill } });
  const asked: ElicitParams[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as unknown as ElicitParams;
    asked.push(params);
    return answer(params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: AUTH } }));
  return { client, asked };
}

describe('issue 35, item 4 — the MCP 2026-07-28 input-required round-trip of approvals, two replicas, official client SDK', () => {
  let db: ReplicaDatabase;
  let llm: FakeLlm;
  let a: RunningApp;
  let b: RunningApp;
  const clients: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    db = await openReplicaDatabase();
    llm = await startFakeLlm({ respond: reversingModel });
    const config = { apiKey: KEY, llm: { baseUrl: llm.baseUrl, model: 'test-model', apiKey: 'sk-test' }, requireApproval: ['text.reverse'], approvalStateSecret: SECRET };
    a = await startSample({ url: db.url }, config);
    b = await startSample({ url: db.url }, config);
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await a?.close();
    await b?.close();
    await llm?.close();
    await db?.close();
  });

  const runs = async (): Promise<number> => (await readAll(a.url, AUTH)).filter((i) => i.type === 'job.completed').length;
  const asking = async (url: string, answer: (params: ElicitParams) => ElicitAnswer, autoFulfill = true): Promise<{ client: Client; asked: ElicitParams[] }> => {
    const connected = await connectAsking(url, answer, autoFulfill);
    clients.push(connected.client);
    return connected;
  };
  const approve = (): ElicitAnswer => ({ action: 'accept', content: { decision: 'approve' } });
  const reverse = (client: Client, text: string): Promise<ToolResult> => client.callTool({ name: 'text_reverse', arguments: { text } }) as Promise<ToolResult>;
  /** Round one only (manual mode): the input-required result itself. */
  const firstRound = async (client: Client, text: string): Promise<InputRequired> =>
    (await client.callTool({ name: 'text_reverse', arguments: { text } }, { allowInputRequired: true })) as unknown as InputRequired;
  /** A retry as the spec's client sends it: the same call, the answer and the state echoed, on any replica. */
  const retry = (client: Client, args: Record<string, unknown>, state: string, answer: ElicitAnswer, name = 'text_reverse'): Promise<ToolResult> =>
    client.callTool({ name, arguments: args, inputResponses: { approval: answer }, requestState: state } as never, { allowInputRequired: true }) as Promise<ToolResult>;

  it('a direct tools/call of a gated capability asks the person in-band (form elicitation: the question, the approval, approve | deny); approved, it runs once', async () => {
    const { client, asked } = await asking(`${a.url}/mcp`, approve);
    const before = await runs();
    const result = await reverse(client, 'Hello');
    expect(asked).toHaveLength(1);
    expect(asked[0].mode).toBe('form');
    expect(asked[0].message).toContain('text.reverse');
    expect(asked[0].message).toMatch(/approval apr_[A-Za-z0-9_-]{32}/);
    expect(asked[0].message).toContain('{"text":"Hello"}');
    expect(asked[0].requestedSchema.properties.decision.enum).toEqual(['approve', 'deny']);
    expect(asked[0].requestedSchema.required).toEqual(['decision']);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ reversed_text: 'olleH' });
    expect(await runs()).toBe(before + 1);
  });

  it('deny, or declining the question, never runs it: approval_denied', async () => {
    for (const answer of [{ action: 'accept', content: { decision: 'deny' } }, { action: 'decline' }] as ElicitAnswer[]) {
      const { client } = await asking(`${b.url}/mcp`, () => answer);
      const before = await runs();
      const result = await reverse(client, 'nope');
      expect(result.isError).toBe(true);
      expect(result._meta?.['io.restap/error']).toEqual({ error: 'approval_denied', status: 403 });
      expect(await runs()).toBe(before);
    }
  });

  it('dismissing the question (cancel) runs nothing and leaves the approval pending: a later genuine answer still runs it once', async () => {
    const { client } = await asking(`${a.url}/mcp`, () => ({ action: 'cancel' }));
    const before = await runs();
    const result = await reverse(client, 'later');
    expect(result.isError).toBe(true);
    expect(result._meta?.['io.restap/error']).toEqual({ error: 'approval_required', status: 403 });
    expect(result.content[0].text).toContain('has NOT run');
    expect(await runs()).toBe(before);

    const manual = (await asking(`${b.url}/mcp`, approve, false)).client;
    const round = await firstRound(manual, 'later');
    const dismissed = await retry(manual, { text: 'later' }, round.requestState, { action: 'cancel' });
    expect(dismissed._meta?.['io.restap/error']).toEqual({ error: 'approval_required', status: 403 });
    const ran = await retry(manual, { text: 'later' }, round.requestState, approve());
    expect(ran.structuredContent).toMatchObject({ reversed_text: 'retal' });
    expect(await runs()).toBe(before + 1);
  });

  it('the requestState is opaque (AES-256-GCM: neither the approval nor the arguments readable); asked on one replica, the retry runs on the other, once; a replay runs nothing', async () => {
    const manual = (await asking(`${a.url}/mcp`, approve, false)).client;
    const other = (await asking(`${b.url}/mcp`, approve, false)).client;
    const round = await firstRound(manual, 'replica');
    expect(round.resultType).toBe('input_required');
    const approval = round._meta?.['io.restap/approval'] as { id: string; arguments: unknown };
    expect(approval).toMatchObject({ id: expect.stringMatching(APR), capability: 'text.reverse', arguments: { text: 'replica' } });
    expect(Object.keys(round.inputRequests)).toEqual(['approval']);
    expect(round.inputRequests.approval.method).toBe('elicitation/create');
    expect(round.requestState).toMatch(/^r1\.[A-Za-z0-9_-]+$/);
    const opened = Buffer.from(round.requestState.slice(3), 'base64url').toString('latin1');
    for (const clear of [approval.id, 'replica', 'text.reverse', 'text_reverse']) expect(opened).not.toContain(clear);

    const before = await runs();
    const ran = await retry(other, { text: 'replica' }, round.requestState, approve());
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ reversed_text: 'acilper' });
    expect(await runs()).toBe(before + 1);

    const replayed = await retry(manual, { text: 'replica' }, round.requestState, approve());
    expect(replayed.isError).toBe(true);
    expect(replayed._meta?.['io.restap/error']).toMatchObject({ error: 'approval_already_decided', status: 409 });
    expect(await runs()).toBe(before + 1);
  });

  it('a forged or altered requestState is refused before anything runs (-32602); a genuine one cannot carry other arguments or reach another tool', async () => {
    const manual = (await asking(`${a.url}/mcp`, approve, false)).client;
    const round = await firstRound(manual, 'shown');
    const before = await runs();
    const body = round.requestState.slice(3);
    const flipped = `r1.${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`;
    for (const forged of [flipped, `r1.${Buffer.from(JSON.stringify({ v: 1, k: 'call', id: 'apr_x' })).toString('base64url')}`, 'not-ours']) {
      await expect(retry(manual, { text: 'shown' }, forged, approve())).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Invalid or expired requestState') });
    }
    const changed = await retry(manual, { text: 'something else' }, round.requestState, approve());
    expect(changed._meta?.['io.restap/error']).toMatchObject({ error: 'approval_arguments_mismatch', status: 409 });
    const elsewhere = await retry(manual, { text: 'shown' }, round.requestState, approve(), 'text_echo');
    expect(elsewhere._meta?.['io.restap/error']).toMatchObject({ error: 'approval_arguments_mismatch', status: 409 });
    expect(await runs()).toBe(before);
    // Still pending: the genuine retry runs it.
    const ran = await retry(manual, { text: 'shown' }, round.requestState, approve());
    expect(ran.structuredContent).toMatchObject({ reversed_text: 'nwohs' });
    expect(await runs()).toBe(before + 1);
  });

  it('the talk tool: a turn whose model asks for text.reverse is asked in-band; approved, the next turn of that session runs it and the model answers with its result', async () => {
    const { client, asked } = await asking(`${b.url}/mcp`, approve);
    const before = await runs();
    const result = (await client.callTool({ name: 'talk', arguments: { message: "reverse 'hello world'" } })) as ToolResult;
    expect(asked).toHaveLength(1);
    expect(asked[0].message).toContain('text.reverse');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ reply: 'Reversed: dlrow olleh', session_id: expect.any(String), message_id: expect.stringMatching(/^msg_/) });
    expect(await runs()).toBe(before + 1);
    // The session goes on: the person's answer and the call are in its history.
    const next = (await client.callTool({ name: 'talk', arguments: { message: 'thanks', session_id: result.structuredContent!.session_id } })) as ToolResult;
    expect(next.structuredContent).toMatchObject({ reply: 'You said: thanks' });
    const history = messagesOf(llm.requests.at(-1)!.body);
    expect(history.map((m) => m.role)).toEqual(expect.arrayContaining(['user', 'assistant', 'tool']));
    expect(history.some((m) => m.role === 'user' && m.content === 'Approve')).toBe(true);
  });

  it('the talk tool, denied: the model reads the denial and text.reverse never ran', async () => {
    const { client } = await asking(`${a.url}/mcp`, () => ({ action: 'accept', content: { decision: 'deny' } }));
    const before = await runs();
    const result = (await client.callTool({ name: 'talk', arguments: { message: "reverse 'no way'" } })) as ToolResult;
    expect(result.structuredContent).toMatchObject({ reply: expect.stringContaining('The call did not run: Error 403 approval_denied') });
    expect(await runs()).toBe(before);
  });

  it('clients that cannot be asked in-band get the resend-with-_meta result as before: a 2026-07-28 client declaring no elicitation, and a 2025-era client', async () => {
    for (const kind of ['2.x pinned 2026-07-28', '1.x (2025-11-25)'] as const) {
      const client = await connectClient(kind, `${a.url}/mcp`, AUTH);
      clients.push(client);
      const before = await runs();
      const held = (await client.callTool({ name: 'text_reverse', arguments: { text: 'Hello' } })) as ToolResult;
      expect(held.isError).toBe(true);
      expect(held._meta?.['io.restap/error']).toEqual({ error: 'approval_required', status: 403 });
      const { id } = held._meta!['io.restap/approval'] as { id: string };
      expect(id).toMatch(APR);
      const ran = (await client.callTool({ name: 'text_reverse', arguments: { text: 'Hello' }, _meta: { 'io.restap/approval': { id, decision: 'approve' } } } as never)) as ToolResult;
      expect(ran.structuredContent).toMatchObject({ reversed_text: 'olleH' });
      expect(await runs()).toBe(before + 1);
    }
  });
});
