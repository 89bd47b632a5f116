/** Wire types of POST /talk (JSON body and SSE events). */

/** Request body of POST /talk. */
export interface TalkRequest {
  message: string;
  session_id?: string;
}

/** JSON response of POST /talk. */
export interface TalkResponse {
  reply: string;
  session_id?: string;
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

/** `tool.start` / `tool.delta` / `tool.end`: presentational hints, not a tool-invocation protocol. */
export interface ToolEvent {
  event: 'tool.start' | 'tool.delta' | 'tool.end';
  name?: string;
  text?: string;
  [extra: string]: unknown;
}

/** `artifact`: a non-text result the client may render. */
export interface ArtifactEvent {
  event: 'artifact';
  [extra: string]: unknown;
}

/**
 * Any event the client does not know. Spec: clients "MUST safely ignore any they do not recognize",
 * so it is passed through rather than treated as an error.
 */
export interface UnknownTalkEvent {
  event: 'unknown';
  /** The SSE `event:` name as sent by the server. */
  name: string;
  /** The parsed JSON payload, or the raw data string when it is not JSON. */
  data: unknown;
}

/** Every event a {@link TalkStream} yields, discriminated on `event`. */
export type TalkEvent =
  | MessageStartEvent
  | MessageDeltaEvent
  | MessageEndEvent
  | StreamErrorEvent
  | DoneEvent
  | StatusEvent
  | ToolEvent
  | ArtifactEvent
  | UnknownTalkEvent;
