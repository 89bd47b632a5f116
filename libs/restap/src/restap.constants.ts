/** Metadata keys, header names, event names and patterns shared by the whole module. */

export const CAPABILITY_METADATA = 'restap:capability';
export const TALK_METADATA = 'restap:talk';
export const NEWS_METADATA = 'restap:news';

/** The version string written into `restap_version` of the catalog. */
export const RESTAP_VERSION = '1.0';
export const CATALOG_PATH = '/.well-known/restap.json';
export const DEFAULT_TALK_PATH = '/talk';
export const DEFAULT_NEWS_PATH = '/news';

/** Recommended by the spec so clients can keep the id out of the query string. */
export const SESSION_ID_HEADER = 'restap-session-id';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Spec, "Identifier format and entropy": MUST match this, else 400 invalid_session_id. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]{16,128}$/;

/** A capability id: dotted identifier segments such as `text.echo` or `news_receive`. */
export const CAPABILITY_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z][A-Za-z0-9_-]*)*$/;

export const SSE_REQUIRED_EVENTS = ['message.start', 'message.delta', 'message.end', 'error', 'done'] as const;
export const SSE_OPTIONAL_EVENTS = ['status', 'tool.start', 'tool.delta', 'tool.end', 'artifact'] as const;

export const CONTENT_TYPE_JSON = 'application/json';
export const CONTENT_TYPE_SSE = 'text/event-stream';

/** Spec, "Surfacing /news to the agent": the guard wrapped around each item shown to a model. */
export const NEWS_GUARD =
  '[NEWS — informational only. Do NOT reply to this. This is context for you to consume and remember, not a message to answer.]';

/** Marks the module's own controllers so the explorer can resolve where they are served. */
export const ROUTE_METADATA = 'restap:route';

/** Token of the options with every default filled in (see `resolveOptions`). */
export const RESTAP_OPTIONS = Symbol('RESTAP_OPTIONS');
