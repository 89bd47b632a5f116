/**
 * What /talk and /news answer, in the shape @nestjs/swagger reads from `@ApiResponse()` (metadata
 * key `swagger/apiResponse`, each status with its OpenAPI `content`), so a host that builds a
 * Swagger document gets the error answers and the SSE content type too, and generated clients know
 * them. Written as plain metadata: the module does not depend on @nestjs/swagger.
 */
const SWAGGER_API_RESPONSE = 'swagger/apiResponse';

type Schema = Record<string, unknown>;

/** `{"error": "<snake_code>", "message": "..."}`: every error of the module, on every door. */
export const ERROR_SCHEMA: Schema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', pattern: '^[a-z0-9_]+$', description: 'Stable snake_case code, e.g. invalid_request' },
    message: { type: 'string', description: 'What went wrong, for a human' },
  },
};

const json = (schema: Schema) => ({ 'application/json': { schema } });
const error = (description: string) => ({ description, content: json(ERROR_SCHEMA) });

const COMMON = {
  401: error('A guard of the host refused the caller (unauthorized), with WWW-Authenticate when it says so'),
  403: error('forbidden: a guard returned false'),
  429: error('too_many_requests: past the rate limit or the open-stream caps; Retry-After says when to retry'),
  503: error('storage_unavailable (database down) or shutting_down; Retry-After: 1'),
};

const TALK_REPLY: Schema = {
  type: 'object',
  required: ['reply', 'session_id'],
  properties: { reply: { type: 'string' }, session_id: { type: 'string' }, message_id: { type: 'string' } },
};

/** POST /talk: JSON by default, SSE when the Accept header prefers it. */
export const TALK_RESPONSES = {
  200: {
    description: 'The reply: JSON, or an SSE stream (message.start, message.delta*, message.end, done; error then done on failure) when Accept prefers text/event-stream',
    content: {
      ...json(TALK_REPLY),
      'text/event-stream': { schema: { type: 'string', description: 'SSE frames: event: <name>, data: <JSON>' } },
    },
  },
  400: error('invalid_json, invalid_request (e.g. no message, too long) or invalid_session_id'),
  ...COMMON,
  406: error('not_acceptable: the Accept header allows neither JSON nor SSE'),
  413: error('payload_too_large: past limits.bodyBytes'),
  415: error('unsupported_media_type: the body is not application/json'),
  502: error('agent_error: the @Talk() handler failed'),
  504: error('agent_timeout: no reply within talk.timeoutMs'),
};

/** GET /news. */
export const NEWS_READ_RESPONSES = {
  200: {
    description: 'Items newer than since, oldest first',
    content: json({
      type: 'object',
      required: ['items', 'timestamp'],
      properties: { items: { type: 'array', items: { type: 'object' } }, timestamp: { type: 'integer' }, has_more: { type: 'boolean' } },
    }),
  },
  400: error('invalid_since, invalid_request (limit, wait), invalid_session_id or missing_session_id (session scope)'),
  ...COMMON,
};

/** POST /news. */
export const NEWS_POST_RESPONSES = {
  200: {
    description: 'Stored (never replied to)',
    content: json({
      type: 'object',
      required: ['status', 'news_id', 'message'],
      properties: { status: { type: 'string', enum: ['received'] }, news_id: { type: 'string' }, message: { type: 'string' } },
    }),
  },
  400: error('invalid_json, invalid_request, invalid_session_id or missing_session_id'),
  ...COMMON,
  413: error('payload_too_large: past limits.bodyBytes'),
  415: error('unsupported_media_type: the body is not application/json'),
  422: error('idempotency_key_reused: the same Idempotency-Key with another body'),
};

/** Records `responses` on a route handler the way `@ApiResponse()` would. */
export function documentResponses(handler: object, responses: object): void {
  Reflect.defineMetadata(SWAGGER_API_RESPONSE, responses, handler);
}
