/** Wire types of POST /talk: the JSON body and reply, and the SSE events. */

/** Request body of POST /talk. */
export interface TalkRequest {
  message: string;
  session_id?: string;
}

/** JSON response of POST /talk. */
export interface TalkResponse {
  reply: string;
  session_id?: string;
  message_id?: string;
  [extra: string]: unknown;
}

/** `message.start`: begins an assistant message; may carry a minted session_id. */
export interface MessageStartEvent {
  event: 'message.start';
  id: string;
  session_id?: string;
  [extra: string]: unknown;
}

/** `message.delta`: a text chunk to append. */
export interface MessageDeltaEvent {
  event: 'message.delta';
  id: string;
  text: string;
  [extra: string]: unknown;
}

/** `message.end`: the assistant message is complete. */
export interface MessageEndEvent {
  event: 'message.end';
  id: string;
  [extra: string]: unknown;
}

/** `error`: an in-stream error. */
export interface StreamErrorEvent {
  event: 'error';
  message: string;
  error?: string;
  [extra: string]: unknown;
}

/** `done`: the terminal event; may repeat the session_id. */
export interface DoneEvent {
  event: 'done';
  session_id?: string;
  [extra: string]: unknown;
}

/** `status`: a human-readable progress note (presentational). */
export interface StatusEvent {
  event: 'status';
  message?: string;
  text?: string;
  [extra: string]: unknown;
}

/**
 * `tool.start` / `tool.delta` / `tool.end`: presentational hints, not a tool-invocation protocol.
 * nestjs-restap's tool loop sends `tool.start` `{id, name, arguments}` before a call and
 * `tool.end` `{id, name, ok, result}` (result shortened) after it.
 */
export interface ToolEvent {
  event: 'tool.start' | 'tool.delta' | 'tool.end';
  /** The call's id (pairs a `tool.end` with its `tool.start`). */
  id?: string;
  name?: string;
  text?: string;
  /** `tool.start`: the arguments the model gave (its raw text when not JSON). */
  arguments?: unknown;
  /** `tool.end`: whether the call succeeded. */
  ok?: boolean;
  /** `tool.end`: the start of the result (or of the error) the model was given. */
  result?: string;
  [extra: string]: unknown;
}

/** `artifact`: a non-text result the client may render. */
export interface ArtifactEvent {
  event: 'artifact';
  [extra: string]: unknown;
}
