import type { IncomingHttpHeaders } from 'node:http';
import type { Observable } from 'rxjs';
import type { NewsItem } from './news.interface';
import type { JsonSchema } from './catalog.interface';

/** Who wrote a turn of a conversation. */
export type TalkRole = 'user' | 'assistant';

/**
 * How a turn ended: answered in full, cut short by the client leaving, failed, or `interrupted`:
 * the app instance running it died (kill -9, crash) before it ended, and another instance marked it
 * so once the dead one's heartbeat stopped (see `replicas`). An interrupted reply has no content.
 */
export type TalkTurnStatus = 'complete' | 'aborted' | 'error' | 'interrupted';

/** One earlier message of this session, as stored (`ctx.history`). */
export interface TalkTurn {
  role: TalkRole;
  content: string;
  /** Id of the message (the assistant's matches its `message.start` id). */
  messageId: string;
  status: TalkTurnStatus;
  createdAt: Date;
  /**
   * Set when `content` is only the beginning of the stored message (see `talk.contextBudget`):
   * the whole message's length, characters. The cut is marked at the end of `content`.
   */
  fullLength?: number;
  /** The tools the assistant called while producing this reply, in order (assistant turns only). */
  toolSteps?: readonly TalkToolStep[];
}

/** One tool call of an assistant turn and the result the model was given. */
export interface TalkToolCallRecord {
  /** The call id the model gave (OpenAI `tool_call.id`). */
  id: string;
  /** The tool name the model used, e.g. `text_reverse`. */
  name: string;
  /** The arguments exactly as the model wrote them (a JSON text, possibly invalid). */
  arguments: string;
  /** The text handed back to the model as the tool's result (the error text when it failed). */
  result: string;
  ok: boolean;
  /**
   * Set on a call of a client tool (an AG-UI frontend tool) whose result had not come back when
   * the turn ended: the turn handed the call to the client and stopped. The turn of the session
   * that carries the result records the call again, same `id`, with it; until then `result` says
   * that none came back.
   */
  pending?: true;
}

/** The calls the model asked for in one message (run in parallel), with their results. */
export interface TalkToolStep {
  calls: TalkToolCallRecord[];
}

/** A tool call inside an OpenAI-style assistant message. */
export interface TalkMessageToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * An OpenAI-style chat message, as returned by `ctx.toMessages()`: system, user and assistant
 * text, and an earlier turn's tool steps as an assistant message with `tool_calls` followed by
 * one `tool` message per call.
 */
export type TalkMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: TalkMessageToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

/**
 * A tool offered to the model (`ctx.tools.list`): a capability of the app, or a tool the client
 * runs itself (`client: true`, an AG-UI frontend tool sent with the run).
 */
export interface TalkTool {
  /** The function name the model calls, e.g. `text_reverse` for the capability `text.reverse`. */
  name: string;
  /** The capability's id, e.g. `text.reverse`; absent for a client tool. */
  capabilityId?: string;
  /** The capability's title and description (a client tool's own description), for the model. */
  description: string;
  /** JSON Schema of the arguments: the body's schema with path and query parameters folded in. */
  parameters: JsonSchema;
  /**
   * A tool the client runs: calling it does not run anything here. The call is handed to the
   * client (its result says `pending`), the turn ends once no other call is running, and a later
   * turn of the session carries the client's result.
   */
  client?: true;
}

/** What a tool call gave back: the capability's result or a typed error, and the text for the model. */
export type TalkToolResult = (
  | { ok: true; status: number; body: unknown }
  | {
      ok: false;
      status: number;
      error: string;
      message: string;
      /** A client tool's call, handed to the client (202 `client_tool_pending`): stop; the turn ends and its result comes in a later turn. */
      pending?: true;
    }
) & {
  /** The call's id (the one given, or a minted one). */
  id: string;
  /** What to hand the model as the tool's result: the JSON body, or the error as text. */
  content: string;
};

/** Options of one `ctx.tools.call()`. */
export interface TalkToolCallOptions {
  /** The model's call id (kept in history as `tool_call_id`). @default a minted `call_…` id */
  id?: string;
  /** Calls with the same step key were asked for in one model message; they replay as one. @default a step of its own */
  step?: string | number;
}

/**
 * The app's capabilities as tools for this turn (empty when `talk.tools` is false). A call runs
 * the capability through the host's guards, pipes, interceptors and filters with the caller's
 * credentials, is cut at `capabilityTimeoutMs` and by `ctx.signal`, never throws, and is recorded
 * with the turn so the next turn's `ctx.toMessages()` replays it.
 */
export interface TalkTools {
  readonly list: readonly TalkTool[];
  /** Calls a tool by name; `args` is an object or the model's JSON text of one. */
  call(name: string, args: unknown, options?: TalkToolCallOptions): Promise<TalkToolResult>;
}

/** A text chunk to append to the reply; a plain string means the same. */
export interface TalkTextChunk {
  event: 'message.delta';
  text: string;
}

/** A human-readable progress note (optional SSE event `status`). */
export interface TalkStatusChunk {
  event: 'status';
  message: string;
  [extra: string]: unknown;
}

/**
 * A presentational hint that the agent is using a tool (optional SSE events `tool.*`). The tool
 * loop sends `tool.start` `{id, name, arguments}` and `tool.end` `{id, name, ok, result}`.
 */
export interface TalkToolChunk {
  event: 'tool.start' | 'tool.delta' | 'tool.end';
  name?: string;
  text?: string;
  [extra: string]: unknown;
}

/** A non-text result the client may render (optional SSE event `artifact`). */
export interface TalkArtifactChunk {
  event: 'artifact';
  [extra: string]: unknown;
}

/**
 * A person must approve a call before it runs (optional SSE event `approval.required`, issue 35):
 * sent by the module when the model calls an approval-gated capability. Answer it with a /talk
 * turn in the same session: `{"session_id": …, "message": …, "approval": {"id", "decision": "approve" | "deny"}}`.
 */
export interface TalkApprovalChunk {
  event: 'approval.required';
  /** `apr_…` */
  id: string;
  capability: string;
  arguments: unknown;
  question: string;
  /** ISO 8601 */
  expires_at: string;
  [extra: string]: unknown;
}

/**
 * What a `@Talk()` handler may stream besides plain strings. Text goes into the reply; the
 * optional events are passed through to SSE clients as-is (JSON clients only get the text).
 */
export type TalkChunk = TalkTextChunk | TalkStatusChunk | TalkToolChunk | TalkArtifactChunk | TalkApprovalChunk;

/** What a `@Talk()` handler may return. */
export type TalkResult =
  | string
  | Promise<string>
  | Observable<string | TalkChunk>
  | AsyncIterable<string | TalkChunk>;

/**
 * Everything a `@Talk()` handler gets for one turn.
 *
 * @example
 * @Talk()
 * answer(ctx: TalkContext) {
 *   return this.openai.chat.completions.create({ model, messages: ctx.toMessages(), stream: true }, { signal: ctx.signal });
 * }
 */
export interface TalkContext {
  /**
   * The user's message, as sent. Empty in a turn that continues the conversation without a new
   * message: one that carries a client tool's result or a person's approval answer (AG-UI).
   */
  readonly message: string;
  /** The conversation's session_id; undefined when sessions are off. A secret: never log it. */
  readonly sessionId: string | undefined;
  /** Id of the assistant message being produced (the SSE `message.start` id). */
  readonly messageId: string;
  /** This session's earlier turns, oldest first, at most `talk.historyLimit` of them. */
  readonly history: readonly TalkTurn[];
  /** News the agent should be aware of (informational only; see `NEWS_GUARD`), oldest first; frozen. */
  readonly news: readonly NewsItem[];
  /** Fires when the client goes away or the turn times out: stop work and upstream requests. */
  readonly signal: AbortSignal;
  /** The request's headers (lower-case names), less Restap-Session-Id (see `sessionId`). */
  readonly headers: Readonly<IncomingHttpHeaders>;
  /** The app's capabilities as tools the model may call (see `openAiToolLoop`). */
  readonly tools: TalkTools;
  /** System prompt, guarded news, history, then the new user message, ready for a chat API. */
  toMessages(): TalkMessage[];
}
