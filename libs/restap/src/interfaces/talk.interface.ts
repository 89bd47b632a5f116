import type { IncomingHttpHeaders } from 'node:http';
import type { Observable } from 'rxjs';
import type { NewsItem } from './news.interface';

/** Who wrote a turn of a conversation. */
export type TalkRole = 'user' | 'assistant';

/** How a turn ended: answered in full, cut short by the client leaving, or failed. */
export type TalkTurnStatus = 'complete' | 'aborted' | 'error';

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
}

/** An OpenAI-style chat message, as returned by `ctx.toMessages()`. */
export interface TalkMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
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

/** A presentational hint that the agent is using a tool (optional SSE events `tool.*`). */
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
 * What a `@Talk()` handler may stream besides plain strings. Text goes into the reply; the
 * optional events are passed through to SSE clients as-is (JSON clients only get the text).
 */
export type TalkChunk = TalkTextChunk | TalkStatusChunk | TalkToolChunk | TalkArtifactChunk;

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
  /** The user's message, as sent. */
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
  /** System prompt, guarded news, history, then the new user message, ready for a chat API. */
  toMessages(): TalkMessage[];
}
