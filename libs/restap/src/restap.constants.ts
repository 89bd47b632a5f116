/** Metadata keys, header names, event names and patterns shared by the whole module. */
import { IDEMPOTENCY_KEY_HEADER as IDEMPOTENCY_KEY, SESSION_ID_HEADER as SESSION_ID } from './wire/constants';

/** The wire's constants are defined once for the module and the client (see `./wire`). */
export {
  RESTAP_VERSION,
  CATALOG_PATH,
  DEFAULT_TALK_PATH,
  DEFAULT_NEWS_PATH,
  SESSION_ID_PATTERN,
  SSE_REQUIRED_EVENTS,
  SSE_OPTIONAL_EVENTS,
  TOOL_EVENTS,
  CONTENT_TYPE_JSON,
  CONTENT_TYPE_SSE,
  NEWS_GUARD,
  ERROR_CODES,
  CAPABILITY_ID_PATTERN,
} from './wire/constants';

export const CAPABILITY_METADATA = 'restap:capability';
export const TALK_METADATA = 'restap:talk';
export const NEWS_METADATA = 'restap:news';

/**
 * The wire's header names (spelled once, in ./wire, for the module and the client:
 * `Restap-Session-Id`, `Idempotency-Key`) as Node.js presents them in `req.headers`: lower case.
 * What a browser reads, such as a CORS allow-list, names them as the wire spells them.
 */
export const SESSION_ID_HEADER = SESSION_ID.toLowerCase();
export const IDEMPOTENCY_KEY_HEADER = IDEMPOTENCY_KEY.toLowerCase();

/** Marks the module's own controllers so the explorer can resolve where they are served. */
export const ROUTE_METADATA = 'restap:route';

/** Token of the options with every default filled in (see `resolveOptions`). */
export const RESTAP_OPTIONS = Symbol('RESTAP_OPTIONS');
/** The `routeDecorators` extra: decorators applied to every route the module owns, the doors' included. */
export const RESTAP_ROUTE_DECORATORS = Symbol('RESTAP_ROUTE_DECORATORS');
