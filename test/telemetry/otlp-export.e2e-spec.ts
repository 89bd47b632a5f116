import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { messagesOf, startFakeLlm, type ChatRequestBody, type FakeLlm, type FakeLlmReply } from '../support/fake-llm';
import { startChildAgent, type ChildAgent } from '../reliability/support/child-agent';

// The real sample in its own process (as `npm start` runs it), configured by the standard OTel
// variables only, exporting to a receiver in this test; the model is the local fake.
jest.setTimeout(120_000);

const KEY = 'otel-sample-key-42';
const LLM_KEY = 'sk-otel-secret-key';
const AUTH = { Authorization: `Bearer ${KEY}` };
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'x-api-key': KEY };
const RATE_LIMIT = 6;
const MCP_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** OTLP/JSON span, as far as the test reads it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
  events?: Array<{ name: string; attributes?: Array<{ key: string; value: Record<string, unknown> }> }>;
}
const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3 };

/**
 * A local OTLP/HTTP receiver on loopback: keeps every body POSTed to /v1/traces, /v1/metrics and
 * /v1/logs with its content type, and answers 200 `{}` as a collector does.
 */
async function startReceiver(): Promise<{ url: string; posts: Array<{ path: string; type: string; body: string }>; close(): Promise<void> }> {
  const posts: Array<{ path: string; type: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', type: String(req.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every span of every OTLP/JSON trace export. */
function spansOf(bodies: string[]): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const body of bodies) {
    const doc = JSON.parse(body) as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: OtlpSpan[] }> }> };
    for (const rs of doc.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
  }
  return spans;
}

function attr(span: OtlpSpan, key: string): unknown {
  const value = span.attributes?.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if ('intValue' in value) return Number(value.intValue);
  if ('arrayValue' in value) return ((value.arrayValue as { values?: Array<{ stringValue?: string }> }).values ?? []).map((v) => v.stringValue);
  return Object.values(value)[0];
}

/** The parent span ids of `span`, nearest first, up to the first one not exported (the caller's). */
function ancestry(trace: OtlpSpan[], span: OtlpSpan): string[] {
  const ids: string[] = [];
  for (let s: OtlpSpan | undefined = span; s?.parentSpanId; s = trace.find((p) => p.spanId === s!.parentSpanId)) ids.push(s.parentSpanId);
  return ids;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/** A model that calls text_reverse on what it is asked to reverse, then answers with the result. */
function reversingModel(body: ChatRequestBody): FakeLlmReply {
  const last = messagesOf(body).at(-1)!;
  if (last.role === 'tool') return { text: `Reversed: ${(JSON.parse(last.content!) as { reversed_text: string }).reversed_text}` };
  const text = /reverse '(.*)'/.exec(last.content ?? '')?.[1] ?? '';
  return { toolCalls: [{ id: 'call_otel_1', name: 'text_reverse', arguments: JSON.stringify({ text }) }] };
}

describe('OpenTelemetry export over OTLP/HTTP JSON (issue 36, "Done when")', () => {
  let db: TestDatabase;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let llm: FakeLlm;
  let agent: ChildAgent | undefined;
  let log = '';
  let spans: OtlpSpan[] = [];
  let exported = '';
  let sessionIds: string[] = [];
  const talkTrace = { traceId: hex(16), spanId: hex(8) };
  const mcpTrace = { traceId: hex(16), spanId: hex(8) };
  const mcpTalkTrace = { traceId: hex(16), spanId: hex(8) };
  const a2aTrace = { traceId: hex(16), spanId: hex(8) };
  const aguiTrace = { traceId: hex(16), spanId: hex(8) };
  const approvalTrace = { traceId: hex(16), spanId: hex(8) };
  const newsTrace = { traceId: hex(16), spanId: hex(8) };

  beforeAll(async () => {
    receiver = await startReceiver();
    db = await createTestDatabase();
    llm = await startFakeLlm({ respond: reversingModel });
    agent = await startChildAgent({
      ...(db.url ? { DATABASE_URL: db.url } : { RESTAP_DATA_DIR: 'memory://' }),
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'test-model',
      LLM_API_KEY: LLM_KEY,
      RESTAP_API_KEY: KEY,
      // Per endpoint and minute: the few requests below pass, the burst on /news at the end does not.
      RESTAP_RATE_LIMIT: String(RATE_LIMIT),
      RESTAP_ACCESS_LOG: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'restap-otel-e2e',
      OTEL_LOGS_EXPORTER: 'none',
    });

    // 1. POST /talk with a traceparent; the model calls text.reverse.
    const talk = await fetch(`${agent.url}/talk`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json', traceparent: `00-${talkTrace.traceId}-${talkTrace.spanId}-01` },
      body: JSON.stringify({ message: "reverse 'hello world'" }),
    });
    expect(talk.status).toBe(200);
    const reply = (await talk.json()) as { reply: string; session_id: string };
    expect(reply.reply).toBe('Reversed: dlrow olleh');
    sessionIds.push(reply.session_id);
    // The session continued: its id comes back in the request too (body), never in a span.
    const again = await fetch(`${agent.url}/talk`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: "reverse 'second turn'", session_id: reply.session_id }),
    });
    expect(again.status).toBe(200);

    // 2. An MCP tools/call of text_reverse, its trace context in the traceparent header.
    const mcp = await fetch(`${agent.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-name': 'text_reverse', traceparent: `00-${mcpTrace.traceId}-${mcpTrace.spanId}-01` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'text_reverse', arguments: { text: 'mcp text' }, _meta: MCP_META } }),
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain('txet pcm');

    // 3. MCP → talk tool → model → capability, its trace context in params._meta (SEP-414).
    const mcpTalk = await fetch(`${agent.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-name': 'talk' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 42,
        method: 'tools/call',
        params: { name: 'talk', arguments: { message: "reverse 'via mcp'" }, _meta: { ...MCP_META, traceparent: `00-${mcpTalkTrace.traceId}-${mcpTalkTrace.spanId}-01` } },
      }),
    });
    expect(mcpTalk.status).toBe(200);
    const mcpText = await mcpTalk.text();
    expect(mcpText).toContain('Reversed: pcm aiv');
    const minted = /session_id\\?"\s*:\s*\\?"([A-Za-z0-9._-]{16,128})/.exec(mcpText)?.[1];
    if (minted) sessionIds.push(minted);

    // 4. An A2A SendMessage, its trace context in the message's metadata.
    const a2a = await fetch(`${agent.url}/a2a`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 43,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: "reverse 'via a2a'" }], metadata: { traceparent: `00-${a2aTrace.traceId}-${a2aTrace.spanId}-01` } } },
      }),
    });
    expect(a2a.status).toBe(200);
    expect(JSON.stringify(await a2a.json())).toContain('Reversed: a2a aiv');

    // 5. An AG-UI run (issue 39's door), its trace context in the traceparent header.
    const agui = await fetch(`${agent.url}/ag-ui`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', accept: 'text/event-stream', traceparent: `00-${aguiTrace.traceId}-${aguiTrace.spanId}-01` },
      body: JSON.stringify({ threadId: '', runId: randomUUID(), messages: [{ id: randomUUID(), role: 'user', content: "reverse 'via agui'" }], tools: [], context: [], state: {}, forwardedProps: {} }),
    });
    expect(agui.status).toBe(200);
    expect(await agui.text()).toContain('RUN_FINISHED');

    // 6. An MCP tools/call of notes_delete, which a person must approve first (issue 35): held, not run.
    const held = await fetch(`${agent.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-name': 'notes_delete', traceparent: `00-${approvalTrace.traceId}-${approvalTrace.spanId}-01` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 44, method: 'tools/call', params: { name: 'notes_delete', arguments: { id: 1 }, _meta: MCP_META } }),
    });
    expect(held.status).toBe(200);
    expect(await held.text()).toContain('approval_required');

    // Concurrent POST /news in one trace: the appends that wait for the one in flight share the next statement.
    const appends = await Promise.all(
      Array.from({ length: RATE_LIMIT - 1 }, (_, k) =>
        fetch(`${agent!.url}/news`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json', traceparent: `00-${newsTrace.traceId}-${newsTrace.spanId}-01` },
          body: JSON.stringify({ type: 'note', message: `burst ${k}` }),
        }).then((r) => r.status),
      ),
    );
    expect(appends.every((status) => status < 300)).toBe(true);

    // A held poll carrying the session id in its query: the http instrumentation must not record it.
    const news = await fetch(`${agent.url}/news?session_id=${reply.session_id}&limit=5&wait=1`, { headers: AUTH });
    expect(news.status).toBe(200);
    // A burst on /news past the rate limit: the 429s are counted and marked on their spans.
    const burst = await Promise.all(Array.from({ length: RATE_LIMIT }, () => fetch(`${agent!.url}/news`, { headers: AUTH }).then((r) => r.status)));
    expect(burst).toContain(429);

    // SIGTERM: the app shuts down and the SDK flushes what it holds.
    agent.process.kill('SIGTERM');
    expect((await agent.exited(30_000)).code).toBe(0);
    log = agent.output();
    agent = undefined;
    spans = spansOf(receiver.posts.filter((p) => p.path === '/v1/traces').map((p) => p.body));
    exported = receiver.posts.map((p) => p.body).join('\n');
  });

  afterAll(async () => {
    agent?.kill();
    await llm?.close();
    await receiver?.close();
    await db?.drop();
  });

  const inTrace = (traceId: string): OtlpSpan[] => spans.filter((s) => s.traceId === traceId);
  const one = (list: OtlpSpan[], predicate: (s: OtlpSpan) => boolean, what: string): OtlpSpan => {
    const found = list.filter(predicate);
    if (found.length !== 1) throw new Error(`expected one ${what}, found ${found.length}: ${list.map((s) => s.name).join(', ')}`);
    return found[0];
  };

  it('exports as OTLP/HTTP JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) to the endpoint, spans and metrics', () => {
    const traces = receiver.posts.filter((p) => p.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.every((p) => p.type.startsWith('application/json'))).toBe(true);
    expect(receiver.posts.some((p) => p.path === '/v1/metrics')).toBe(true);
  });

  it('POST /talk with a traceparent: a server span in that trace, child of the caller\'s span (item 2, Done when)', () => {
    const trace = inTrace(talkTrace.traceId);
    const server = one(trace, (s) => s.name === 'POST /talk' && attr(s, 'restap.door') === 'restap', 'RESTAP door span');
    expect(server.kind).toBe(SPAN_KIND.SERVER);
    // Under the caller's span: directly, or through the host's HTTP server span.
    expect(ancestry(trace, server).at(-1)).toBe(talkTrace.spanId);
    expect(attr(server, 'http.route')).toBe('/talk');
    expect(attr(server, 'http.response.status_code')).toBe(200);
    expect(attr(server, 'restap.door')).toBe('restap');
  });

  it('the turn is an invoke_agent span under the server span, with its stored status and a hashed conversation id (item 2)', () => {
    const trace = inTrace(talkTrace.traceId);
    const server = one(trace, (s) => s.name === 'POST /talk' && attr(s, 'restap.door') === 'restap', 'RESTAP door span');
    const turn = one(trace, (s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent', 'invoke_agent span');
    expect(turn.name).toBe('invoke_agent Text Analysis Agent');
    expect(turn.parentSpanId).toBe(server.spanId);
    expect(attr(turn, 'restap.turn.status')).toBe('complete');
    expect(attr(turn, 'gen_ai.conversation.id')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('each model call is a `chat {model}` client span with gen_ai.operation.name, model, tokens and finish reason (item 2, Done when)', () => {
    const trace = inTrace(talkTrace.traceId);
    const turn = one(trace, (s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent', 'invoke_agent span');
    const chats = trace.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat');
    expect(chats).toHaveLength(2); // asks for the tool, then answers with its result
    for (const chat of chats) {
      expect(chat).toMatchObject({ name: 'chat test-model', kind: SPAN_KIND.CLIENT, parentSpanId: turn.spanId });
      expect(attr(chat, 'gen_ai.request.model')).toBe('test-model');
      expect(attr(chat, 'gen_ai.provider.name')).toBe('openai');
      expect(attr(chat, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
      expect(attr(chat, 'gen_ai.usage.output_tokens')).toBeGreaterThan(0);
    }
    expect(chats.map((c) => attr(c, 'gen_ai.response.finish_reasons')).sort()).toEqual([['stop'], ['tool_calls']]);
  });

  it('the model\'s call of text.reverse is an execute_tool span under the turn, with its HTTP status and outcome (item 2, Done when)', () => {
    const trace = inTrace(talkTrace.traceId);
    const turn = one(trace, (s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent', 'invoke_agent span');
    const tool = one(trace, (s) => attr(s, 'gen_ai.operation.name') === 'execute_tool', 'execute_tool span');
    expect(tool).toMatchObject({ name: 'execute_tool text_reverse', parentSpanId: turn.spanId });
    expect(attr(tool, 'gen_ai.tool.name')).toBe('text_reverse');
    expect(attr(tool, 'gen_ai.tool.call.id')).toBe('call_otel_1');
    expect(attr(tool, 'restap.capability.id')).toBe('text.reverse');
    expect(attr(tool, 'http.response.status_code')).toBe(200);
    expect(attr(tool, 'restap.tool.outcome')).toBe('ok');
  });

  it('an MCP tools/call is a server span with mcp.method.name, continuing the traceparent header, its tool call under it (item 2, Done when)', () => {
    const trace = inTrace(mcpTrace.traceId);
    const server = one(trace, (s) => attr(s, 'restap.door') === 'mcp', 'MCP server span');
    expect(server.kind).toBe(SPAN_KIND.SERVER);
    expect(server.name).toBe('tools/call text_reverse');
    expect(ancestry(trace, server).at(-1)).toBe(mcpTrace.spanId);
    expect(attr(server, 'mcp.method.name')).toBe('tools/call');
    expect(attr(server, 'gen_ai.tool.name')).toBe('text_reverse');
    expect(attr(server, 'jsonrpc.request.id')).toBe('41');
    expect(attr(server, 'mcp.protocol.version')).toBe('2026-07-28');
    const tool = one(trace, (s) => s.name === 'execute_tool text_reverse', 'execute_tool span');
    expect(tool.parentSpanId).toBe(server.spanId);
  });

  it('MCP → talk tool → model → capability is one trace, continuing the traceparent in params._meta (SEP-414)', () => {
    const trace = inTrace(mcpTalkTrace.traceId);
    const server = one(trace, (s) => attr(s, 'restap.door') === 'mcp', 'MCP server span');
    // The _meta context wins over the HTTP request's own span: the MCP span is the client's child.
    expect(server).toMatchObject({ name: 'tools/call talk', parentSpanId: mcpTalkTrace.spanId });
    const turn = one(trace, (s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent', 'invoke_agent span');
    expect(turn.parentSpanId).toBe(server.spanId);
    expect(trace.filter((s) => attr(s, 'gen_ai.operation.name') === 'chat' && s.parentSpanId === turn.spanId)).toHaveLength(2);
    expect(one(trace, (s) => s.name === 'execute_tool text_reverse', 'execute_tool span').parentSpanId).toBe(turn.spanId);
  });

  it('an A2A SendMessage is a server span named after its method, continuing the traceparent in message metadata, the turn under it (item 2)', () => {
    const trace = inTrace(a2aTrace.traceId);
    const server = one(trace, (s) => attr(s, 'restap.door') === 'a2a', 'A2A server span');
    expect(server).toMatchObject({ name: 'SendMessage', kind: SPAN_KIND.SERVER, parentSpanId: a2aTrace.spanId });
    expect(attr(server, 'rpc.method')).toBe('SendMessage');
    expect(attr(server, 'rpc.system')).toBe('jsonrpc');
    const turn = one(trace, (s) => attr(s, 'gen_ai.operation.name') === 'invoke_agent', 'invoke_agent span');
    expect(ancestry(trace, turn)).toContain(server.spanId);
    expect(one(trace, (s) => s.name === 'execute_tool text_reverse', 'execute_tool span').parentSpanId).toBe(turn.spanId);
  });

  it('an AG-UI run is a server span of the agui door in the caller\'s trace, the turn and its tool call under it (item 2: AG-UI)', () => {
    const trace = inTrace(aguiTrace.traceId);
    const server = one(trace, (s) => attr(s, 'restap.door') === 'agui', 'AG-UI server span');
    expect(server.name).toBe('POST /ag-ui');
    expect(ancestry(trace, server)).toContain(aguiTrace.spanId); // under the http instrumentation's span
    const tool = one(trace, (s) => s.name === 'execute_tool text_reverse', 'execute_tool span');
    expect(ancestry(trace, tool)).toContain(server.spanId);
  });

  it('an approval asked is a span event naming the capability and the door, never the approval id or its arguments (item 2: approvals)', () => {
    const trace = inTrace(approvalTrace.traceId);
    const asked = trace.flatMap((s) => s.events ?? []).filter((e) => e.name === 'restap.approval.required');
    expect(asked).toHaveLength(1);
    expect(JSON.stringify(asked[0])).toContain('notes.delete');
    expect(JSON.stringify(trace)).not.toMatch(/apr_[A-Za-z0-9_-]{8,}/);
  });

  it('metrics: gen_ai.client.token.usage, gen_ai.client.operation.duration, turn and tool durations, news, open streams and held polls (item 3)', () => {
    const metrics = receiver.posts.filter((p) => p.path === '/v1/metrics').map((p) => p.body).join('\n');
    const names = ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration', 'restap.turn.duration', 'restap.tool.duration', 'restap.news.appended', 'restap.streams.open', 'restap.news.polls.held', 'restap.rate_limit.refusals'];
    for (const name of names) {
      expect(metrics).toContain(`"${name}"`);
    }
  });

  it("the sample's http and pg instrumentations: the door's span sits under the HTTP server span, storage spans in the turn's trace (item 5)", () => {
    const trace = inTrace(talkTrace.traceId);
    const server = one(trace, (s) => s.name === 'POST /talk' && attr(s, 'restap.door') === 'restap', 'RESTAP door span');
    const http = trace.find((s) => s.spanId === server.parentSpanId);
    expect(http).toMatchObject({ kind: SPAN_KIND.SERVER, parentSpanId: talkTrace.spanId });
    expect(trace.some((s) => attr(s, 'db.system') === 'postgresql' || attr(s, 'db.system.name') === 'postgresql')).toBe(true);
  });

  it('a held poll, the group commit and a rate-limit refusal show as span events (item 2: long-poll waits, storage; item 3)', () => {
    const poll = spans.find((s) => attr(s, 'restap.door') === 'restap' && s.name === 'GET /news');
    expect(poll?.events?.map((e) => e.name).filter((name) => name.startsWith('restap.news.poll'))).toEqual(['restap.news.poll.wait', 'restap.news.poll.answered']);
    const refused = spans.filter((s) => s.name === 'GET /news' && attr(s, 'http.response.status_code') === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((s) => s.events?.some((e) => e.name === 'restap.rate_limited'))).toBe(true);
    // Only a request that waited for a batch in flight gets the event: one that went straight to the database has its own statement's span.
    const appends = inTrace(newsTrace.traceId).filter((s) => s.name === 'POST /news' && attr(s, 'restap.door') === 'restap');
    const waited = appends.flatMap((s) => s.events ?? []).filter((e) => e.name === 'restap.group_commit');
    expect(appends).toHaveLength(RATE_LIMIT - 1);
    expect(waited.length).toBeGreaterThan(0);
    expect(waited.every((e) => Number(e.attributes?.find((a) => a.key === 'restap.group_commit.batch_size')?.value.intValue) >= 1)).toBe(true);
  });

  it('the access log carries trace_id and span_id when a span is active (item 4)', () => {
    expect(log).toMatch(new RegExp(`POST /talk 200 .* trace_id=${talkTrace.traceId} span_id=[0-9a-f]{16}`));
  });

  it('no exported span, attribute or metric holds a session id, an API key or message text (item 6, Done when)', () => {
    expect(sessionIds.length).toBeGreaterThan(0);
    expect(exported.length).toBeGreaterThan(0);
    for (const secret of [...sessionIds, KEY, LLM_KEY, 'hello world', 'dlrow olleh', 'second turn', 'mcp text', 'via mcp', 'via a2a']) {
      expect(exported).not.toContain(secret);
    }
  });
});
