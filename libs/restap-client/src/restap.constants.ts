/** Paths, header names, media types, event names and patterns the client relies on (spec 0.1.4-beta). */

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
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Spec, "Identifier format and entropy". */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]{16,128}$/;

export const CONTENT_TYPE_JSON = 'application/json';
export const CONTENT_TYPE_SSE = 'text/event-stream';
/** Prefer a stream but accept JSON, so servers without streaming never answer 406. */
export const ACCEPT_STREAM_OR_JSON = `${CONTENT_TYPE_SSE}, ${CONTENT_TYPE_JSON}`;

/** Events every streaming server MUST emit (spec, "SSE event vocabulary for /talk"). */
export const SSE_REQUIRED_EVENTS = ['message.start', 'message.delta', 'message.end', 'error', 'done'] as const;
/** Presentational events a server MAY emit. */
export const SSE_OPTIONAL_EVENTS = ['status', 'tool.start', 'tool.delta', 'tool.end', 'artifact'] as const;

/** Error codes fixed by the spec. */
export const ERROR_INVALID_SESSION_ID = 'invalid_session_id';
export const ERROR_MISSING_SESSION_ID = 'missing_session_id';

/** Client defaults. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_NEWS_RETRIES = 3;
