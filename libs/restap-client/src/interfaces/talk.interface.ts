/** Wire types of POST /talk (JSON body and SSE events). */

import type {
  ArtifactEvent,
  DoneEvent,
  MessageDeltaEvent,
  MessageEndEvent,
  MessageStartEvent,
  StatusEvent,
  StreamErrorEvent,
  ToolEvent,
} from '../wire/talk';

/** The request, reply and SSE events are defined once for the module and the client (see `../wire`). */
export type {
  TalkRequest,
  TalkResponse,
  ArtifactEvent,
  DoneEvent,
  MessageDeltaEvent,
  MessageEndEvent,
  MessageStartEvent,
  StatusEvent,
  StreamErrorEvent,
  ToolEvent,
} from '../wire/talk';

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
