/** Paths, header names, media types, event names and patterns the client relies on (spec 0.1.4-beta). */
import { CONTENT_TYPE_JSON, CONTENT_TYPE_SSE, ERROR_CODES } from './wire/constants';

/** Defined once for the module and the client (see `./wire`). */
export {
  CATALOG_PATH,
  DEFAULT_TALK_PATH,
  DEFAULT_NEWS_PATH,
  TALK_CAPABILITY_ID,
  NEWS_CAPABILITY_ID,
  NEWS_RECEIVE_CAPABILITY_ID,
  SESSION_ID_HEADER,
  IDEMPOTENCY_KEY_HEADER,
  LAST_EVENT_ID_HEADER,
  TALK_RESUME_EXTENSION,
  SESSION_ID_PATTERN,
  CONTENT_TYPE_JSON,
  CONTENT_TYPE_SSE,
  SSE_REQUIRED_EVENTS,
  SSE_OPTIONAL_EVENTS,
  ERROR_CODES,
} from './wire/constants';

/** Prefer a stream but accept JSON, so servers without streaming never answer 406. */
export const ACCEPT_STREAM_OR_JSON = `${CONTENT_TYPE_SSE}, ${CONTENT_TYPE_JSON}`;

/** Error codes fixed by the spec. */
export const ERROR_INVALID_SESSION_ID = ERROR_CODES.invalidSessionId;
export const ERROR_MISSING_SESSION_ID = ERROR_CODES.missingSessionId;

/** Client defaults. */
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_NEWS_RETRIES = 3;
