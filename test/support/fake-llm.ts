import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake server received. */
export interface FakeLlmRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when there was none or it was not JSON). */
  body: unknown;
  /** True when the client closed the connection before the reply was complete. */
  aborted: boolean;
  /** True once the full reply was written. */
  finished: boolean;
  /** Chunks written so far (streaming replies). */
  chunksSent: number;
}

/** How the fake answers; every field can be changed between tests with `configure`. */
export interface FakeLlmBehaviour {
  /** The assistant's reply, fixed or computed from the request body. @default 'Hello from the fake LLM.' */
  reply: string | ((body: ChatRequestBody) => string);
  /** How the reply is cut into streamed deltas. @default words with their trailing spaces */
  split: (reply: string) => string[];
  /** Wait before the first streamed chunk, ms. @default 0 */
  firstChunkDelayMs: number;
  /** Wait between streamed chunks, ms. @default 0 */
  chunkDelayMs: number;
  /** Answer with this HTTP error status instead of a completion. */
  failWithStatus?: number;
  /**
   * A scripted model: given the request, the text and/or tool calls of the next assistant
   * message (takes precedence over `reply`). Streamed tool calls arrive in pieces: each call's
   * id and name first, then its arguments `argumentChunk` characters at a time, the calls'
   * pieces interleaved, then `finish_reason: "tool_calls"`.
   */
  respond?: (body: ChatRequestBody) => FakeLlmReply;
}

/** One assistant message of a scripted fake model. */
export interface FakeLlmReply {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** Characters of arguments per streamed piece. @default 4 */
  argumentChunk?: number;
}

/** A chat message as OpenAI-compatible clients send it (tool calls and results included). */
export interface ChatMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The part of a chat-completions request body the fake reads. */
export interface ChatRequestBody {
  model?: string;
  /** Text messages (`messagesOf(body)` reads tool calls and results too). */
  messages?: Array<{ role: string; content: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: Record<string, unknown> } }>;
  stream?: boolean;
  [extra: string]: unknown;
}

/** The messages of a request as sent, tool calls and tool results included. */
export function messagesOf(body: unknown): ChatMessage[] {
  return ((body as { messages?: ChatMessage[] } | undefined)?.messages ?? []) as ChatMessage[];
}

/** A running fake OpenAI-compatible server. */
export interface FakeLlm {
  /** Base URL to give an OpenAI client, e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  requests: FakeLlmRequest[];
  configure(behaviour: Partial<FakeLlmBehaviour>): void;
  /** Resolves once `predicate` holds (polled), or rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const DEFAULTS: FakeLlmBehaviour = {
  reply: 'Hello from the fake LLM.',
  split: (reply) => reply.split(/(?<=\s)/),
  firstChunkDelayMs: 0,
  chunkDelayMs: 0,
};

/**
 * A local OpenAI-compatible server on 127.0.0.1 (random port) for tests: `POST …/chat/completions`
 * answers with a streamed SSE completion (`data: {chunk}` … `data: [DONE]`) or a JSON one, and
 * `GET …/models` lists one model. Every request is recorded, including whether the client hung up
 * before the reply ended.
 */
export async function startFakeLlm(behaviour: Partial<FakeLlmBehaviour> = {}): Promise<FakeLlm> {
  let current: FakeLlmBehaviour = { ...DEFAULTS, ...behaviour };
  const requests: FakeLlmRequest[] = [];
  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const record: FakeLlmRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: parseJson(raw), aborted: false, finished: false, chunksSent: 0 };
      requests.push(record);
      res.on('close', () => {
        if (!record.finished) record.aborted = true;
      });
      void answer(record, res, current);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    configure: (next) => (current = { ...current, ...next }),
    waitFor: async (predicate, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`FakeLlm.waitFor: condition not met within ${timeoutMs} ms`);
        await delay(10);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(record: FakeLlmRequest, res: ServerResponse, behaviour: FakeLlmBehaviour): Promise<void> {
  if (record.method === 'GET' && /\/models\/?$/.test(record.path)) {
    return json(res, record, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' }] });
  }
  if (record.method !== 'POST' || !/\/chat\/completions\/?$/.test(record.path)) {
    return json(res, record, 404, { error: { message: `No route ${record.method} ${record.path}`, type: 'invalid_request_error' } });
  }
  if (behaviour.failWithStatus) {
    return json(res, record, behaviour.failWithStatus, { error: { message: 'Simulated failure', type: 'server_error' } });
  }
  const body = (record.body ?? {}) as ChatRequestBody;
  if (behaviour.respond) return scripted(record, res, body, behaviour.respond(body), behaviour);
  const reply = typeof behaviour.reply === 'function' ? behaviour.reply(body) : behaviour.reply;
  const base = { id: 'chatcmpl-fake', created: Math.floor(Date.now() / 1000), model: body.model ?? 'fake-model' };
  if (!body.stream) {
    const message = { role: 'assistant', content: reply };
    return json(res, record, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: 'stop' }] });
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
  const frame = (delta: object, finish: string | null): string =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const parts = behaviour.split(reply);
  for (const [i, part] of parts.entries()) {
    await delay(i === 0 ? behaviour.firstChunkDelayMs : behaviour.chunkDelayMs);
    if (record.aborted || res.destroyed) return;
    res.write(frame(i === 0 ? { role: 'assistant', content: part } : { content: part }, null));
    record.chunksSent++;
  }
  if (record.aborted || res.destroyed) return;
  res.write(frame({}, 'stop'));
  const usage = usageFrame(body, base, parts.length);
  if (usage) res.write(usage);
  res.write('data: [DONE]\n\n');
  record.finished = true;
  res.end();
}

/** A scripted assistant message: text deltas, then tool calls in interleaved pieces (or one JSON completion). */
async function scripted(record: FakeLlmRequest, res: ServerResponse, body: ChatRequestBody, reply: FakeLlmReply, behaviour: FakeLlmBehaviour): Promise<void> {
  const base = { id: 'chatcmpl-fake', created: Math.floor(Date.now() / 1000), model: body.model ?? 'fake-model' };
  const calls = reply.toolCalls ?? [];
  const finish = calls.length ? 'tool_calls' : 'stop';
  if (!body.stream) {
    const tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    const message = { role: 'assistant', content: reply.text ?? null, ...(calls.length ? { tool_calls } : {}) };
    return json(res, record, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }] });
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  res.flushHeaders();
  const frames: object[] = [{ role: 'assistant', content: null }];
  for (const part of reply.text ? behaviour.split(reply.text) : []) frames.push({ content: part });
  const size = reply.argumentChunk ?? 4;
  const pieces = calls.map((c) => chunksOf(c.arguments, size));
  calls.forEach((c, index) => frames.push({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
  for (let i = 0; pieces.some((p) => i < p.length); i++) {
    pieces.forEach((p, index) => i < p.length && frames.push({ tool_calls: [{ index, function: { arguments: p[i] } }] }));
  }
  for (const [i, delta] of frames.entries()) {
    await delay(i === 0 ? behaviour.firstChunkDelayMs : behaviour.chunkDelayMs);
    if (record.aborted || res.destroyed) return;
    res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
    record.chunksSent++;
  }
  res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
  const usage = usageFrame(body, base, frames.length);
  if (usage) res.write(usage);
  res.write('data: [DONE]\n\n');
  record.finished = true;
  res.end();
}

/**
 * The usage chunk OpenAI sends last on a stream asked with `stream_options: { include_usage: true }`
 * (no choices): prompt tokens counted as the words of the messages, completion tokens as the
 * chunks sent. Empty when the request did not ask.
 */
function usageFrame(body: ChatRequestBody, base: object, completionTokens: number): string {
  if ((body.stream_options as { include_usage?: unknown } | undefined)?.include_usage !== true) return '';
  const promptTokens = messagesOf(body).reduce((n, m) => n + (m.content ?? '').split(/\s+/).filter(Boolean).length, 0);
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  return `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`;
}

function chunksOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

function json(res: ServerResponse, record: FakeLlmRequest, status: number, body: object): void {
  record.finished = true;
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(''));
  });
}

function parseJson(raw: string): unknown {
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
