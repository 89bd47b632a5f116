import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { useSampleAgent } from '../support/sample-app';
import { artifactText, asTask, sendParams, text, userMessage } from './a2a-support';

// Issue 38, items 1 and 2: wire errors as JSON-RPC, and the HTTP+JSON binding beside JSON-RPC.
jest.setTimeout(90_000);

type Rpc = { jsonrpc: string; id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
const V1 = { 'Content-Type': 'application/json', 'A2A-Version': '1.0' };
const rpc = (method: string, params: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const message = (extra: Record<string, unknown> = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }], ...extra });

describe('issue 38, item 1: wire errors are JSON-RPC errors with the codes the A2A 1.0 spec and JSON-RPC 2.0 give', () => {
  const agent = useSampleAgent({});
  async function post(body: string, headers: Record<string, string> = V1): Promise<{ status: number; rpc: Rpc }> {
    const res = await fetch(`${agent.url}/a2a`, { method: 'POST', headers, body });
    return { status: res.status, rpc: (await res.json()) as Rpc };
  }

  it('malformed JSON on /a2a is -32700 Parse error with a null id (HTTP 200), not a 400', async () => {
    const { status, rpc: answer } = await post('{"jsonrpc": "2.0", "method": ');
    expect(status).toBe(200);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it.each([
    ['a jsonrpc other than "2.0"', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } })],
    ['no method', JSON.stringify({ jsonrpc: '2.0', id: 1, params: {} })],
    ['an object id', JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'GetTask', params: { id: 'x' } })],
    ['a batch (array)', JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }])],
    ['params that are not an object', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: [1] })],
  ])('an invalid envelope (%s) is -32600 Invalid Request, not -32602', async (_, body) => {
    const { status, rpc: answer } = await post(body);
    expect(status).toBe(200);
    expect(answer.error?.code).toBe(-32600);
  });

  it('a 1.0 SendMessage whose message has no role is -32602, and runs nothing', async () => {
    const { rpc: answer } = await post(rpc('SendMessage', { message: message({ role: undefined }) }));
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/role/) });
    const unspecified = await post(rpc('SendMessage', { message: message({ role: 'ROLE_UNSPECIFIED' }) }));
    expect(unspecified.rpc.error?.code).toBe(-32602);
  });

  it('a message with parts: [] is -32602', async () => {
    const { rpc: answer } = await post(rpc('SendMessage', { message: message({ parts: [] }) }));
    expect(answer.error).toMatchObject({ code: -32602, message: expect.stringMatching(/parts/) });
  });

  it('a negative historyLength and an invalid statusTimestampAfter are refused -32602', async () => {
    expect((await post(rpc('GetTask', { id: randomUUID(), historyLength: -1 }))).rpc.error?.code).toBe(-32602);
    expect((await post(rpc('SendMessage', { message: message(), configuration: { historyLength: -3 } }))).rpc.error?.code).toBe(-32602);
    expect((await post(rpc('ListTasks', { statusTimestampAfter: 'yesterday' }))).rpc.error?.code).toBe(-32602);
    expect((await post(rpc('ListTasks', { statusTimestampAfter: '2026-01-01T00:00:00Z' }))).rpc.result).toBeDefined();
  });

  it('a body that is not JSON is ContentTypeNotSupportedError (-32005, HTTP 415), not read', async () => {
    const res = await fetch(`${agent.url}/a2a`, { method: 'POST', headers: { 'Content-Type': 'text/plain', 'A2A-Version': '1.0' }, body: rpc('GetTask', { id: 'x' }) });
    expect(res.status).toBe(415);
    expect((await res.json()).error).toMatchObject({ code: -32005 });
    const rest = await fetch(`${agent.url}/a2a/rest/message:send`, { method: 'POST', headers: { 'Content-Type': 'text/plain', 'A2A-Version': '1.0' }, body: '{}' });
    expect(rest.status).toBe(415);
    expect(await rest.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT', details: [expect.objectContaining({ reason: 'CONTENT_TYPE_NOT_SUPPORTED' })] } });
  });

  it('a well-formed 1.0 message still completes (the checks refuse only what is wrong)', async () => {
    const { rpc: answer } = await post(rpc('SendMessage', { message: message() }));
    expect(answer.result?.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
  });
});

describe('issue 38, item 2: the HTTP+JSON binding beside JSON-RPC (the SDK\'s restHandler)', () => {
  const agent = useSampleAgent({});

  it('the card lists a JSON-RPC and an HTTP+JSON interface', async () => {
    const card = await (await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    const bindings = card.supportedInterfaces.filter((i: { protocolVersion: string }) => i.protocolVersion === '1.0');
    expect(bindings).toEqual([
      { url: `${agent.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${agent.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
  });

  it('a message sent over HTTP+JSON (POST /a2a/rest/message:send) completes, and GET /a2a/rest/tasks/{id} reads the same task', async () => {
    const res = await fetch(`${agent.url}/a2a/rest/message:send`, { method: 'POST', headers: V1, body: JSON.stringify({ message: message() }) });
    expect(res.status).toBe(200);
    const { task } = await res.json();
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, contextId: expect.stringMatching(/^[A-Za-z0-9._-]{16,128}$/) });
    const read = await fetch(`${agent.url}/a2a/rest/tasks/${task.id}?historyLength=1`, { headers: V1 });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    // And over JSON-RPC: the bindings share one store.
    const viaRpc = await (await fetch(`${agent.url}/a2a`, { method: 'POST', headers: V1, body: rpc('GetTask', { id: task.id }) })).json();
    expect(viaRpc.result).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('the official client, preferring HTTP+JSON, sends a message and gets the reply', async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }));
    const client = await factory.createFromUrl(agent.url);
    const task = asTask(await client.sendMessage(sendParams(userMessage([text('hello over REST')]))));
    expect(task.status?.state).toBe(3 /* TASK_STATE_COMPLETED */);
    expect(artifactText(task)).toMatch(/\S/);
  });

  it('the same checks answer in the binding\'s own shape: malformed JSON, no role, parts: [] are 400 with an A2A error body', async () => {
    const broken = await fetch(`${agent.url}/a2a/rest/message:send`, { method: 'POST', headers: V1, body: '{"message": ' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const noRole = await fetch(`${agent.url}/a2a/rest/message:send`, { method: 'POST', headers: V1, body: JSON.stringify({ message: message({ role: undefined }) }) });
    expect(noRole.status).toBe(400);
    expect(JSON.stringify(await noRole.json())).toMatch(/role/);
    const noParts = await fetch(`${agent.url}/a2a/rest/message:send`, { method: 'POST', headers: V1, body: JSON.stringify({ message: message({ parts: [] }) }) });
    expect(noParts.status).toBe(400);
    const unknown = await fetch(`${agent.url}/a2a/rest/tasks/${randomUUID()}`, { headers: V1 });
    expect(unknown.status).toBe(404);
  });
});

describe('A2A 1.0 §11.1 (the A2A test kit\'s HTTP_JSON-SVC-001, HTTP_JSON-ERR-001): "Content-Type: application/json for requests and responses" on HTTP+JSON', () => {
  const agent = useSampleAgent({});

  it('an answer and an AIP-193 error are application/json unless the client asks for application/a2a+json (which it then gets, as the SDK\'s client does)', async () => {
    const sent = await fetch(`${agent.url}/a2a/rest/message:send`, { method: 'POST', headers: V1, body: JSON.stringify({ message: message() }) });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const missing = await fetch(`${agent.url}/a2a/rest/tasks/${randomUUID()}`, { headers: { 'A2A-Version': '1.0', Accept: '*/*' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await missing.json()).toMatchObject({ error: { details: [expect.objectContaining({ reason: 'TASK_NOT_FOUND' })] } });
    const asked = await fetch(`${agent.url}/a2a/rest/tasks/${randomUUID()}`, { headers: { 'A2A-Version': '1.0', Accept: 'application/a2a+json, application/json' } });
    expect(asked.headers.get('content-type')).toBe('application/a2a+json; charset=utf-8');
    const refused = await fetch(`${agent.url}/a2a/rest/tasks/${randomUUID()}`, { headers: { 'A2A-Version': '1.0', Accept: 'application/a2a+json;q=0, application/json' } });
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });
});
