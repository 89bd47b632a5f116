import type { TalkChunk, TalkContext, TalkMessage, TalkToolResult } from '../../interfaces/talk.interface';
import { context } from '@opentelemetry/api';
import { randomToken } from '../../sessions/random-token';
import { startChatSpan, type ChatReport } from '../telemetry/restap.telemetry';

/** Characters of a result shown in `tool.end` (the model gets all of it). */
const SHORT_RESULT_CHARS = 200;

/** One streamed chunk of an OpenAI-compatible chat completion, as far as the loop reads it. */
export interface ChatCompletionChunkLike {
  id?: string;
  model?: string;
  /** Sent by servers that report usage on a stream (OpenAI: `stream_options: { include_usage: true }`). */
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  choices?: Array<{
    finish_reason?: string | null;
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
  }>;
}

/**
 * The part of an OpenAI-compatible client the loop uses: the official `openai` package's `OpenAI`
 * fits as it is (the library itself never loads that package).
 */
export interface OpenAiCompatibleClient {
  chat: {
    completions: {
      create(body: never, options?: { signal?: AbortSignal }): PromiseLike<unknown>;
    };
  };
}

/** Options of `openAiToolLoop`. */
export interface OpenAiToolLoopOptions {
  /** An OpenAI-compatible client, e.g. `new OpenAI({ baseURL, apiKey })`. */
  client: OpenAiCompatibleClient;
  model: string;
  /** Rounds of tool calls before the model must answer without tools. @default 5 */
  maxSteps?: number;
  /** The conversation to start from. @default ctx.toMessages() */
  messages?: TalkMessage[];
  /** More fields of each chat-completions request (temperature, max_tokens, stream_options…). */
  request?: Record<string, unknown>;
  /** `gen_ai.provider.name` on each `chat` span (`openai`, `ollama`, `azure.ai.openai`…). @default 'openai' */
  provider?: string;
}

interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Answers a /talk turn with an OpenAI-compatible model that may call the app's capabilities:
 * streams the completion with `ctx.tools` as functions, assembles the streamed `tool_calls`
 * (arguments arrive in pieces; one message may hold several calls), runs the calls in parallel
 * through `ctx.tools` (the caller's credentials, the host's guards and pipes), feeds the results
 * back and asks again, up to `maxSteps` rounds, then once more without tools. Text streams as it
 * comes; each call is framed by `tool.start` `{id, name, arguments}` and `tool.end`
 * `{id, name, ok, result}`. A failed call (unknown tool, invalid arguments, refusal, timeout) is
 * the model's tool result, not the turn's error. A call of a client tool (an AG-UI frontend tool,
 * `ctx.tools.list` entries with `client: true`) gets `tool.start` and no `tool.end`: once the
 * step's other calls have answered, the loop ends, and the session's next turn carries the
 * client's result (`ctx.toMessages()` has it). `ctx.signal` stops the requests and calls in flight.
 *
 * @example
 * @Talk()
 * answer(ctx: TalkContext) {
 *   return openAiToolLoop(ctx, { client: new OpenAI({ baseURL, apiKey }), model: 'gpt-4o-mini' });
 * }
 */
export async function* openAiToolLoop(ctx: TalkContext, options: OpenAiToolLoopOptions): AsyncGenerator<string | TalkChunk> {
  const maxSteps = options.maxSteps ?? 5;
  const messages: unknown[] = [...(options.messages ?? ctx.toMessages())];
  const tools = ctx.tools.list.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  const loop = randomToken(6);
  for (let step = 0; ; step++) {
    const offerTools = tools.length > 0 && step < maxSteps;
    const body = { ...options.request, model: options.model, messages, stream: true, ...(offerTools ? { tools } : {}) };
    // One `chat {model}` span per request, ended when its stream is (or fails, or is cancelled).
    const chat = startChatSpan(options.model, options.provider ?? 'openai');
    const report: ChatReport = chat.capturesContent ? { inputMessages: messages.map(semconvMessage) } : {};
    let text = '';
    const calls: AssembledCall[] = [];
    try {
      const stream = (await context.with(chat.context, () => options.client.chat.completions.create(body as never, { signal: ctx.signal }))) as AsyncIterable<ChatCompletionChunkLike>;
      for await (const chunk of stream) {
        noteReport(report, chunk);
        const delta = chunk.choices?.[0]?.delta;
        if (delta?.content) {
          text += delta.content;
          yield delta.content;
        }
        for (const piece of delta?.tool_calls ?? []) {
          const call = (calls[piece.index ?? 0] ??= { id: '', name: '', arguments: '' });
          if (piece.id) call.id = piece.id;
          if (piece.function?.name) call.name += piece.function.name;
          if (piece.function?.arguments) call.arguments += piece.function.arguments;
        }
      }
    } catch (error) {
      report.error = error;
      throw error;
    } finally {
      if (chat.capturesContent) report.outputMessages = [outputMessage(text, calls, report.finishReasons)];
      chat.end(report);
    }
    const asked = calls.filter(Boolean).map((c) => ({ ...c, id: c.id || `call_${randomToken(12)}` }));
    if (!offerTools || !asked.length || ctx.signal.aborted) return;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: asked.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    for (const c of asked) yield { event: 'tool.start', id: c.id, name: c.name, arguments: parsedOrRaw(c.arguments) };
    const results: TalkToolResult[] = [];
    for await (const [i, result] of settledInOrderOfCompletion(asked.map((c) => ctx.tools.call(c.name, c.arguments, { id: c.id, step: `${loop}:${step}` })))) {
      results[i] = result;
      // A client tool's call has no result yet: the client runs it once the turn has ended.
      if (!result.ok && result.pending) continue;
      yield { event: 'tool.end', id: result.id, name: asked[i].name, ok: result.ok, result: short(result.content) };
    }
    // Handed to the client: the turn ends here; the session's next turn carries its result.
    if (results.some((r) => !r.ok && r.pending)) return;
    for (const result of results) messages.push({ role: 'tool', tool_call_id: result.id, content: result.content });
    if (ctx.signal.aborted) return;
  }
}

/**
 * A chat message in the GenAI conventions' shape (`gen_ai.input.messages`): role and parts (text,
 * tool calls, tool results). Only built when content capture is on.
 */
function semconvMessage(message: unknown): unknown {
  const m = message as { role?: string; content?: unknown; tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>; tool_call_id?: string };
  if (m.role === 'tool') return { role: 'tool', parts: [{ type: 'tool_call_response', id: m.tool_call_id, response: m.content }] };
  const parts: unknown[] = typeof m.content === 'string' && m.content ? [{ type: 'text', content: m.content }] : [];
  for (const call of m.tool_calls ?? []) parts.push({ type: 'tool_call', id: call.id, name: call.function?.name, arguments: call.function?.arguments });
  return { role: m.role, parts };
}

function outputMessage(text: string, calls: AssembledCall[], finishReasons: string[] | undefined): unknown {
  const parts: unknown[] = text ? [{ type: 'text', content: text }] : [];
  for (const call of calls.filter(Boolean)) parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
  return { role: 'assistant', parts, finish_reason: finishReasons?.at(-1) ?? 'stop' };
}

/** What a streamed chunk tells a `chat` span: the model and id answering, finish reasons, usage. */
function noteReport(report: ChatReport, chunk: ChatCompletionChunkLike): void {
  if (chunk.model && !report.responseModel) report.responseModel = chunk.model;
  if (chunk.id && !report.responseId) report.responseId = chunk.id;
  const finish = chunk.choices?.[0]?.finish_reason;
  if (finish) (report.finishReasons ??= []).push(finish);
  if (chunk.usage) {
    if (typeof chunk.usage.prompt_tokens === 'number') report.inputTokens = chunk.usage.prompt_tokens;
    if (typeof chunk.usage.completion_tokens === 'number') report.outputTokens = chunk.usage.completion_tokens;
  }
}

/** Each promise's index and value as soon as it settles (the calls never reject). */
async function* settledInOrderOfCompletion<T>(promises: Array<Promise<T>>): AsyncGenerator<[number, T]> {
  const pending = new Map(promises.map((p, i) => [i, p.then((value): [number, T] => [i, value])]));
  while (pending.size) {
    const [i, value] = await Promise.race(pending.values());
    pending.delete(i);
    yield [i, value];
  }
}

function parsedOrRaw(text: string): unknown {
  try {
    return text.trim() ? JSON.parse(text) : {};
  } catch {
    return text;
  }
}

function short(text: string): string {
  return text.length > SHORT_RESULT_CHARS ? `${text.slice(0, SHORT_RESULT_CHARS)}…` : text;
}
