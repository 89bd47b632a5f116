import type { CanActivate, Type } from '@nestjs/common';
import type { RestapPackage, RestapProtocols } from './catalog.interface';

/** Who the agent is; written to the catalog's `agent` object. */
export interface RestapAgentInfo {
  /** Human-readable agent name. Required. */
  name: string;
  /** What the agent does. */
  description?: string;
  /** Contact address (email or URL). */
  contact?: string;
  /** Any other field is advertised verbatim. */
  [extra: string]: unknown;
}

/** Options of the `/talk` endpoint. */
export interface RestapTalkOptions {
  /** Offer SSE streaming through content negotiation. @default true */
  streaming?: boolean;
  /** Mint, return and persist `session_id` for continuity. @default true */
  sessions?: boolean;
  /** Longest accepted `message`, in characters. @default 100000 */
  maxMessageLength?: number;
  /** Earlier turns handed to the handler in `ctx.history` (newest kept). @default 50 */
  historyLimit?: number;
  /** System prompt placed first by `ctx.toMessages()`. */
  systemPrompt?: string;
  /** Interval of SSE heartbeat comments, ms. @default 15000 */
  heartbeatMs?: number;
  /** Time the handler may take for the whole reply, ms (504 / `error` event past it). @default 120000 */
  timeoutMs?: number;
  /** Optional SSE events the handler emits, advertised in the catalog. @default [] */
  events?: Array<'status' | 'tool.start' | 'tool.delta' | 'tool.end' | 'artifact'>;
  /** Catalog title. @default 'Talk to agent' */
  title?: string;
  /** Catalog description. */
  description?: string;
}

/** Options of the `/news` endpoint. */
export interface RestapNewsOptions {
  /**
   * `global`: session_id optional, items may be tagged to a session.
   * `session`: every request must carry a session_id; each session sees only its own feed.
   * @default 'global'
   */
  scope?: 'global' | 'session';
  /** Longest accepted `type`, in characters. @default 200 */
  maxTypeLength?: number;
  /** Items per GET page when `limit` is absent. @default 100 */
  defaultLimit?: number;
  /** Largest accepted `limit`. @default 1000 */
  maxLimit?: number;
  /** Newest items surfaced to the model in `ctx.news`. @default 20 */
  contextLimit?: number;
}

/** Limits shared by the module's routes. */
export interface RestapLimitsOptions {
  /** Largest JSON body on /talk and /news, bytes. @default 1048576 (1 MiB) */
  bodyBytes?: number;
}

/**
 * Options of `RestapModule.forRoot()` / `forRootAsync()`.
 *
 * @example
 * RestapModule.forRoot({ agent: { name: 'Text Analysis Agent' }, news: { scope: 'global' } })
 */
export interface RestapModuleOptions {
  agent: RestapAgentInfo;
  /** `false` disables /talk. @default {} (enabled; needs exactly one `@Talk()` method) */
  talk?: RestapTalkOptions | false;
  /** `false` disables /news. @default {} (enabled, global scope) */
  news?: RestapNewsOptions | false;
  /** Packages advertised verbatim in the catalog (spec, "Optional Packages"). */
  packages?: RestapPackage[];
  /** Related protocols advertised in the catalog (spec, "Top-Level protocols Field"). */
  protocols?: RestapProtocols;
  limits?: RestapLimitsOptions;
  /** Guards run before the module's /talk and /news handlers (after the host's global guards). */
  guards?: Array<Type<CanActivate>>;
  /** `Cache-Control` of the catalog. @default 'public, max-age=60' */
  catalogCacheControl?: string;
}

/** Options with every default filled in; produced once by `resolveOptions()`. */
export interface ResolvedRestapOptions {
  agent: RestapAgentInfo;
  talk: Required<Omit<RestapTalkOptions, 'systemPrompt' | 'description'>> & { systemPrompt?: string; description: string; enabled: boolean };
  news: Required<RestapNewsOptions> & { enabled: boolean };
  packages?: RestapPackage[];
  protocols?: RestapProtocols;
  limits: Required<RestapLimitsOptions>;
  guards: Array<Type<CanActivate>>;
  catalogCacheControl: string;
}

/** Extras given beside the options to both forRoot and forRootAsync (route paths must be known statically). */
export interface RestapModuleExtras {
  /** Path of the talk route. @default '/talk' */
  talkPath?: string;
  /** Path of the news route. @default '/news' */
  newsPath?: string;
}
