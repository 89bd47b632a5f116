/** Paths, header names, media types, event names, patterns and error codes of RESTAP 0.1.4-beta. */

/** The RESTAP version written into (and expected in) the catalog's `restap_version`. */
export const RESTAP_VERSION = '1.0';

/** Well-known discovery document, relative to the agent's base URL. */
export const CATALOG_PATH = '/.well-known/restap.json';
export const DEFAULT_TALK_PATH = '/talk';
export const DEFAULT_NEWS_PATH = '/news';

/** Capability ids the spec uses for the built-in endpoints. */
export const TALK_CAPABILITY_ID = 'talk';
export const NEWS_CAPABILITY_ID = 'news';
export const NEWS_RECEIVE_CAPABILITY_ID = 'news_receive';

/** Recommended by the spec so the session id stays out of URLs (it is a bearer secret). */
export const SESSION_ID_HEADER = 'Restap-Session-Id';
/** Makes a POST /news retry safe: same key and body, same acknowledgement. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** SSE (WHATWG HTML, "Server-sent events"): the id of the last event a client received, sent when it reconnects. */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';
/** The catalog extension (on the talk capability) announcing resumable /talk streams. */
export const TALK_RESUME_EXTENSION = 'x-restap-resume';

/** Spec, "Identifier format and entropy": a session_id MUST match this. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]{16,128}$/;

/**
 * A capability id as nestjs-restap writes them: dotted identifier segments such as `text.echo` or
 * `news_receive` (the spec asks only for a unique string; the playground warns on other ids).
 */
export const CAPABILITY_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z][A-Za-z0-9_-]*)*$/;

export const CONTENT_TYPE_JSON = 'application/json';
export const CONTENT_TYPE_SSE = 'text/event-stream';

/** Events every streaming server MUST emit (spec, "SSE event vocabulary for /talk"). */
export const SSE_REQUIRED_EVENTS = ['message.start', 'message.delta', 'message.end', 'error', 'done'] as const;
/** Presentational events a server MAY emit. */
export const SSE_OPTIONAL_EVENTS = ['status', 'tool.start', 'tool.delta', 'tool.end', 'artifact'] as const;
/** The optional events sent around each tool call when the model behind /talk uses tools. */
export const TOOL_EVENTS = ['tool.start', 'tool.end'] as const;

/** Spec, "Surfacing /news to the agent": the guard wrapped around each item shown to a model. */
export const NEWS_GUARD =
  '[NEWS — informational only. Do NOT reply to this. This is context for you to consume and remember, not a message to answer.]';

/**
 * The `error` codes of `{"error": "<code>", "message": "..."}` bodies: the two the spec fixes
 * (`invalid_session_id`, `missing_session_id`) and the ones nestjs-restap adds.
 */
export const ERROR_CODES = {
  invalidSessionId: 'invalid_session_id',
  missingSessionId: 'missing_session_id',
  invalidRequest: 'invalid_request',
  invalidJson: 'invalid_json',
  invalidSince: 'invalid_since',
  unsupportedMediaType: 'unsupported_media_type',
  payloadTooLarge: 'payload_too_large',
  notAcceptable: 'not_acceptable',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  idempotencyKeyReused: 'idempotency_key_reused',
  tooManyRequests: 'too_many_requests',
  storageUnavailable: 'storage_unavailable',
  shuttingDown: 'shutting_down',
  agentError: 'agent_error',
  agentTimeout: 'agent_timeout',
  /** Resumable /talk streams (nestjs-restap extension): a `Last-Event-ID` that is not one of the turn's event ids. */
  invalidLastEventId: 'invalid_last_event_id',
  /** Resumable /talk streams: no such turn for this session (unknown, another session's, or expired). */
  turnNotFound: 'turn_not_found',
  /** Resumable /talk streams: the turn ran on a replica that stopped before it was stored. */
  agentInterrupted: 'agent_interrupted',
  /** Resumable /talk streams: the turn was stopped on purpose (`DELETE {talk path}/{message_id}`) before its reply was complete. */
  turnStopped: 'turn_stopped',
  /** Resumable /talk streams: the turn's frames went past the kept bounds, so it cannot be replayed. */
  resumeUnavailable: 'resume_unavailable',
} as const;

/** One of {@link ERROR_CODES}. */
export type RestapErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** The JSON body of every error response. */
export interface RestapErrorBody {
  error: string;
  message: string;
}
