import type { RestapCaller } from './caller.interface';
import type { CanActivate, Type } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
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

/**
 * How much earlier context (news and history) one /talk turn carries, whatever the feed and the
 * conversation hold: what `ctx.news`, `ctx.history` and `ctx.toMessages()` contain.
 */
export interface RestapContextBudget {
  /**
   * Characters of news and history together, as rendered for the model. Newest first: news takes
   * at most half, history the rest; older items and turns past it are left out. @default 64000
   */
  totalChars?: number;
  /**
   * Characters of one news item (its JSON) or one history message. Longer ones are cut, with a
   * marker saying so; a cut news item comes as `{type, timestamp, news_id, truncated: {chars, preview}}`.
   * @default 8000
   */
  itemChars?: number;
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
  /** Size bounds of the news and history a turn carries. @default { totalChars: 64000, itemChars: 8000 } */
  contextBudget?: RestapContextBudget;
  /** System prompt placed first by `ctx.toMessages()`. */
  systemPrompt?: string;
  /** Interval of SSE heartbeat comments, ms. @default 15000 */
  heartbeatMs?: number;
  /** Time the handler may take for the whole reply, ms (504 / `error` event past it). @default 120000 */
  timeoutMs?: number;
  /**
   * SSE streams open at once on this instance; past it, 429 too_many_requests. An idle stream costs
   * about 16 KB of RSS (README, "What an idle connection costs"): 5,000 are about 80 MB. @default 5000
   */
  maxStreams?: number;
  /** SSE streams open at once per client (IP address, see `trust proxy`); past it, 429. @default 50 */
  maxStreamsPerClient?: number;
  /** Optional SSE events the handler emits, advertised in the catalog. @default [] */
  events?: Array<'status' | 'tool.start' | 'tool.delta' | 'tool.end' | 'artifact'>;
  /**
   * Offer the app's capabilities to the `@Talk()` handler as tools (`ctx.tools`; every
   * `@Capability()` unless `tool: false`); `false` hands it none. @default true
   */
  tools?: boolean;
  /** @deprecated Use the top-level `capabilityTimeoutMs`, which every door's capability calls share. */
  toolTimeoutMs?: number;
  /** Catalog title. @default 'Talk to agent' */
  title?: string;
  /** Catalog description. */
  description?: string;
  /**
   * Resumable SSE streams (an extension plain RESTAP clients never notice, docs/resumable-talk.md):
   * every frame of a /talk stream gets an `id:`, its frames are kept in PostgreSQL, and
   * `GET {talk path}/{message_id}` with `Restap-Session-Id` and `Last-Event-ID` replays what
   * followed on any replica, then follows the turn until `done`. With it on, a client that
   * disconnects no longer stops the turn: it finishes and is stored (`talk.timeoutMs` still
   * bounds it). Needs `talk.sessions` and `talk.streaming`. `true` takes every default.
   * @default false
   */
  resume?: boolean | RestapTalkResumeOptions;
}

/** Bounds and timings of resumable /talk streams (see `RestapTalkOptions.resume`). */
export interface RestapTalkResumeOptions {
  /** How long a turn's frames stay resumable after the turn is stored, ms. @default 300000 (5 min) */
  graceMs?: number;
  /** Frames kept per turn; a turn past it cannot be resumed (its live stream is unaffected). @default 10000 */
  maxFrames?: number;
  /** Bytes of frame data kept per turn; a turn past it cannot be resumed. @default 1048576 (1 MiB) */
  maxBytes?: number;
  /**
   * A running turn's new frames are written at most this often, ms: one INSERT carries what every
   * turn of the instance produced meanwhile. A turn that ends sooner has all its frames written
   * with the turn itself, in the same statement. @default 200
   */
  flushMs?: number;
  /**
   * How often a resumed stream looks for new frames of a turn still running (on any replica) while
   * no LISTEN connection wakes it (the embedded database, `news.wakeups: 'in-process'`, or the
   * connection down); with one, it reads when the writing replica notifies, and every `news.resyncMs`. ms. @default 250
   */
  pollMs?: number;
  /** The SSE `retry:` hint sent first on every stream: how long a client should wait before resuming, ms. @default 1000 */
  retryMs?: number;
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
  /**
   * How polls held with `GET /news?wait=` on every replica learn that an item committed.
   * `'auto'`: on a PostgreSQL server, LISTEN/NOTIFY on one dedicated connection per instance (opened
   * with TypeORM's connection settings, outside its pool); on the embedded PGlite database, an
   * in-process signal. `{ listenUrl }`: LISTEN through this connection string instead — needed when
   * the DataSource goes through PgBouncer in transaction mode, which cannot carry LISTEN (give the
   * server's direct address, or a session-mode pool). `'in-process'`: this instance's writes only
   * (other replicas' items are found by the `resyncMs` re-read).
   * The same connection carries the A2A door's task wake-ups (channel `restap_a2a`: a subscription
   * or a cancel reaching another instance than the task's runner), capability tasks' (`restap_tasks`:
   * a cancel, `tasks/result`) and resumed /talk streams' (`restap_talk`), so this setting chooses it
   * for them too, even with /news off; in-process, they re-read storage every 250 ms instead.
   * @default 'auto'
   */
  wakeups?: 'auto' | 'in-process' | { listenUrl: string };
  /** Held polls re-read their feeds at this interval even without a wake-up (a NOTIFY can be lost), ms. @default 5000 */
  resyncMs?: number;
  /**
   * Polls held at once on this instance (`GET /news?wait=`); past it, 429 too_many_requests. A held
   * poll costs about 18 KB of RSS (README, "What an idle connection costs"): 5,000 are about 90 MB. @default 5000
   */
  maxWaiting?: number;
  /** Polls held at once per client (IP address, see `trust proxy`); past it, 429. @default 50 */
  maxWaitingPerClient?: number;
}

/** Limits shared by the module's routes. */
export interface RestapLimitsOptions {
  /** Largest JSON body on /talk and /news, bytes (413 payload_too_large past it). @default 1048576 (1 MiB) */
  bodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a JSON body (400 invalid_request past it), on the
   * module's routes and on the `@Capability()` routes (checked ahead of the host's pipes). @default 64
   */
  maxJsonDepth?: number;
  /**
   * A refusal answered before the body is read (413, 415, 429, 503) closes the connection, but
   * first keeps reading and dropping what the client still sends (a lingering close, as nginx
   * does), so a client still writing its body reads the answer instead of a connection reset. At
   * most this long after the answer, ms. @default 10000
   */
  lingeringCloseMs?: number;
  /** At most this many bytes read and dropped by a lingering close (see `lingeringCloseMs`). @default 16777216 (16 MiB) */
  lingeringCloseBytes?: number;
}

/**
 * Per-client rate limit of /talk and /news, counted in a `@nestjs/throttler` storage by the
 * module's front door, on the module's routes only (the host's other routes are untouched). Each
 * route (POST /talk, GET /news, POST /news) counts separately, whatever the spelling of its path; a
 * client is its IP address (`req.ip`: set Express's `trust proxy` behind a proxy). Past the limit:
 * 429 too_many_requests with `Retry-After`, before the body is read and before any guard, handler
 * (or LLM) runs.
 */
export interface RestapRateLimitOptions {
  /** Requests allowed per client and route within `ttlMs`. */
  limit: number;
  /** Window, ms. */
  ttlMs: number;
  /**
   * Count hits in Redis, shared by every replica (rate-limiter-flexible's `RateLimiterRedis` on
   * ioredis): a URL such as `redis://127.0.0.1:6379/0`. While Redis is unreachable each instance
   * counts in memory (an insurance limiter) and logs a warning; requests never wait on Redis.
   */
  redis?: string;
  /**
   * Count hits in the app's own PostgreSQL database, shared by every replica
   * (`RateLimiterPostgres`, table `restap_rate_limits`, created on first use).
   */
  postgres?: boolean;
  /**
   * Where hits are counted, when neither `redis` nor `postgres` is set.
   * @default an in-memory store per instance
   */
  storage?: ThrottlerStorage;
}

/** Cross-origin access to the catalog, /talk and /news. Off unless given. */
export interface RestapCorsOptions {
  /**
   * Origins allowed to call from a browser, e.g. `['https://app.example.com']`, or `'*'` for any
   * (refused when news.scope is 'session': a session-scoped feed never allows every origin).
   */
  origins: string[] | '*';
  /** How long a browser may cache a preflight answer, seconds. @default 600 */
  maxAgeSeconds?: number;
}

/**
 * OAuth 2.1 on every door (RFC 9728, RFC 8707, the MCP authorization spec 2025-11-25): the agent
 * is a protected resource. /talk, /news, the MCP and A2A endpoints then take only
 * `Authorization: Bearer <JWT>` access tokens the `issuer` signed for `audience`; a request without
 * a valid one gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"` naming
 * `/.well-known/oauth-protected-resource`, which names the issuer. The catalog, the A2A card and
 * the metadata itself stay public. Tokens are verified with `jose` (JWKS from the issuer's
 * discovery, cached, refetched on an unknown `kid`); they are never logged or stored.
 */
export interface RestapOAuthOptions {
  /** The authorization server's issuer URL (`iss`); its metadata is read from `/.well-known/oauth-authorization-server` or `openid-configuration`. */
  issuer: string;
  /**
   * The agent's resource identifier (RFC 8707): its public base URL, e.g. `https://agent.example.com`.
   * A token is accepted only when its `aud` names it; it is the `resource` of the protected resource metadata.
   */
  audience: string;
  /** The JWKS URL; unset: the `jwks_uri` of the issuer's metadata. */
  jwksUri?: string;
  /** JWS algorithms accepted (never `none`, never HS*: the keys are the issuer's public keys). @default ['RS256', 'PS256', 'ES256', 'EdDSA'] */
  algorithms?: string[];
  /** Leeway for `nbf` / `iat` (clock skew with the issuer), seconds; `exp` is enforced as it is. @default 5 */
  clockTolerance?: number;
  /**
   * Scopes a capability needs, by capability id, beside its `@Capability({ scopes })`: a caller
   * whose token lacks one does not see the capability in MCP `tools/list`, the A2A card's skills or
   * the model's tools, and a call gets 403 `insufficient_scope`. E.g. `{ 'text.reverse': ['text:reverse'] }`.
   */
  requiredScopes?: Record<string, string[]>;
  /** Scopes advertised as `scopes_supported` in the protected resource metadata. @default every scope a capability requires */
  scopesSupported?: string[];
  /** How long a fetched JWKS is kept before it is fetched again, ms. @default 600000 */
  jwksCacheMaxAgeMs?: number;
  /**
   * Opaque (non-JWT) access tokens, checked by RFC 7662 introspection at the issuer's
   * `introspection_endpoint` (or `endpoint`) with these client credentials (HTTP Basic). The answer
   * must be `active`, from `issuer`, for `audience`, with an `exp`. Each request with an opaque token
   * asks the issuer (no cache). Unset: only JWTs are accepted.
   */
  introspection?: { clientId: string; clientSecret: string; endpoint?: string };
  /**
   * The playground's own client id at the authorization server: a public client (no secret) with
   * the authorization code flow, PKCE S256, and the playground page's URL as its redirect URI
   * (e.g. `https://agent.example.com/playground`). Set: the playground offers "Sign in" (it finds the
   * issuer through the catalog and the protected resource metadata). Unset: it takes a pasted token only.
   */
  playgroundClientId?: string;
}

/** How callers prove who they are. @default {} (no OAuth: the `guards` option and the host's guards decide) */
export interface RestapAuthOptions {
  /** OAuth 2.1 bearer tokens on every door; unset: off (no check runs at all). */
  oauth?: RestapOAuthOptions;
}

export interface ResolvedRestapOAuthOptions {
  issuer: string;
  audience: string;
  jwksUri?: string;
  algorithms: string[];
  clockTolerance: number;
  requiredScopes: Record<string, string[]>;
  scopesSupported?: string[];
  jwksCacheMaxAgeMs: number;
  introspection?: { clientId: string; clientSecret: string; endpoint?: string };
  playgroundClientId?: string;
}

/**
 * Work left behind by an instance that died without shutting down (kill -9, crash, lost host).
 * Each instance writes a heartbeat every `heartbeatMs`; once an instance's heartbeat is older than
 * `orphanAfterMs`, the others mark its open /talk turns `interrupted` (the user's message stays in
 * history) and its running A2A tasks `failed`. Every instance of one agent should use the same values.
 */
export interface RestapReplicasOptions {
  /** How often this instance writes its heartbeat and looks for dead instances' work, ms. @default 5000 */
  heartbeatMs?: number;
  /**
   * How long an instance may go without a heartbeat before its work counts as orphaned, ms. Must be
   * at least twice `heartbeatMs`, and longer than the longest the event loop may stall. @default 30000
   */
  orphanAfterMs?: number;
}

/** How the module treats its storage. */
export interface RestapStorageOptions {
  /**
   * At startup the module reads `SHOW synchronous_commit`: when it is `off`, a commit can be lost
   * in a crash after it was acknowledged. `false` logs a loud warning; `true` refuses to start.
   * @default false
   */
  requireSynchronousCommit?: boolean;
  /**
   * Send the module's statements as named prepared statements on TypeORM's pg pool, so
   * PostgreSQL plans each once per connection. Turn off behind a pooler that cannot keep them
   * (PgBouncer before 1.21 in transaction mode). @default true
   */
  preparedStatements?: boolean;
}

/** OpenTelemetry (docs/observability.md). Spans and metrics need the host to register the SDK. */
export interface RestapTelemetryOptions {
  /**
   * Record content on spans: the messages sent to the model and its answers on each `chat` span
   * (`gen_ai.input.messages`, `gen_ai.output.messages`), and the arguments and result of each
   * tool call on its `execute_tool` span (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`).
   * What users write ends up in your traces: turn it on only where that is acceptable.
   * @default false
   */
  captureContent?: boolean;
}

/**
 * Human approval of consequential calls (see docs/approvals.md). A capability needs approval when
 * its `@Capability({ approval })` rule or `require` says so.
 */
export interface RestapApprovalOptions {
  /**
   * For hosts that cannot touch the decorator: whether a call of `capabilityId` needs approval,
   * answered like a capability's `approval` rule (`false`/`undefined` no, `true` yes, a string yes
   * with that question). Consulted when the decorator does not already ask for approval.
   *
   * @example
   * require: (id) => ['orders.cancel', 'customers.delete'].includes(id)
   */
  require?: (capabilityId: string, args: Readonly<Record<string, unknown>>, caller: RestapCaller) => boolean | string | undefined;
  /** How long a pending approval can be decided, ms; later it expires and never runs. @default 900000 (15 min) */
  ttlMs?: number;
  /**
   * Who a caller is, as stored with an approval (`requested_by`, `decided_by`): e.g. the user of a
   * verified token. Never return a credential. @default a SHA-256 fingerprint of the caller's
   * credentials (`cred:` + 16 hex digits), or `anonymous`
   */
  identify?: (caller: RestapCaller) => string | undefined;
  /**
   * The secret that seals the MCP input-required round-trip's `requestState` (protocol 2026-07-28;
   * AES-256-GCM under a key derived from it with HKDF-SHA256): at least 32 bytes, the same on every
   * replica (a replica may receive the client's retry that another one asked for). With it, a
   * 2026-07-28 client that declares form elicitation is asked in-band: the held `tools/call` (or
   * `talk` turn) answers `input_required` with the question, and the client retries with the
   * person's answer and the sealed state. Without it, those clients get the resend-with-`_meta`
   * result that 2025-era clients get. Keep it out of source control (e.g. an environment variable).
   * @default undefined (no in-band round-trip)
   *
   * @example
   * requestStateSecret: process.env.RESTAP_APPROVAL_STATE_SECRET
   */
  requestStateSecret?: string | Uint8Array;
}

/** Long-running capabilities run as tasks (`@Capability({ task: true })`, docs/tools.md). */
export interface RestapCapabilityTaskOptions {
  /**
   * Time a capability call run as a task may take before the task fails with 504 `tool_timeout`,
   * ms (a plain call keeps `capabilityTimeoutMs`). @default 600000 (10 min)
   */
  timeoutMs?: number;
  /**
   * How long a finished task stays readable (`tasks/get`, `tasks/result`), ms: its `ttl`, and the
   * most a 2025-11-25 MCP client may ask for (`params.task.ttl`). @default 3600000 (1 h)
   */
  ttlMs?: number;
}

/**
 * The options of the core and the RESTAP door: everything in `RestapModuleOptions` but the optional
 * doors' slices, which live beside each door (`doors/<door>/<door>.options.ts`).
 */
export interface RestapCoreOptions {
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
  /** Per-client rate limit of /talk and /news; `false` for none. @default false */
  rateLimit?: RestapRateLimitOptions | false;
  /** CORS on the module's routes. @default undefined (off: no CORS headers) */
  cors?: RestapCorsOptions;
  /**
   * Guards run before the module's /talk and /news handlers (after the host's global guards and
   * the rate limit), resolved from the host's providers when registered there, else created by
   * the module. The catalog stays public.
   */
  guards?: Array<Type<CanActivate>>;
  /**
   * On shutdown (SIGTERM with `enableShutdownHooks()`), how long open /talk turns may run on
   * before they end with `error` + `done`, ms. New /talk and /news requests get 503 meanwhile.
   * @default 10000
   */
  shutdownGraceMs?: number;
  /**
   * Time one capability call may take when something other than an HTTP client makes it — the
   * model's tools (`ctx.tools`), an MCP `tools/call`, an A2A capability call — before it ends with
   * 504 `tool_timeout`, ms. @default 30000 (or the deprecated `talk.toolTimeoutMs`)
   */
  capabilityTimeoutMs?: number;
  /**
   * Capabilities marked `@Capability({ task: true })` when a door runs a call as a task (an MCP
   * task, a non-blocking A2A send). @default { timeoutMs: 600000, ttlMs: 3600000 }
   */
  capabilityTasks?: RestapCapabilityTaskOptions;
  storage?: RestapStorageOptions;
  /** Heartbeats and the orphan window (see RestapReplicasOptions). @default { heartbeatMs: 5000, orphanAfterMs: 30000 } */
  replicas?: RestapReplicasOptions;
  /** `Cache-Control` of the catalog. @default 'public, max-age=60' */
  catalogCacheControl?: string;
  /** Human approval of consequential calls. @default { ttlMs: 900000 } (only decorated capabilities need approval) */
  approval?: RestapApprovalOptions;
  /** OpenTelemetry spans and metrics. @default { captureContent: false } */
  telemetry?: RestapTelemetryOptions;
  /** Sign-in: OAuth 2.1 bearer tokens on every door (see RestapOAuthOptions). @default {} (off) */
  auth?: RestapAuthOptions;
}

/**
 * The core's options with every default filled in (`resolveOptions()`): what the core, the kit and
 * the RESTAP door read. Each optional door reads these and its own resolved slice.
 */
export interface ResolvedRestapCoreOptions {
  agent: RestapAgentInfo;
  talk: Required<Omit<RestapTalkOptions, 'systemPrompt' | 'description' | 'contextBudget' | 'toolTimeoutMs' | 'resume'>> & {
    systemPrompt?: string;
    /** Resumable streams with every default filled in, or false. */
    resume: Required<RestapTalkResumeOptions> | false;
    description: string;
    enabled: boolean;
    contextBudget: Required<RestapContextBudget>;
  };
  news: Required<RestapNewsOptions> & { enabled: boolean };
  packages?: RestapPackage[];
  protocols?: RestapProtocols;
  limits: Required<RestapLimitsOptions>;
  rateLimit: RestapRateLimitOptions | false;
  cors?: Required<RestapCorsOptions>;
  guards: Array<Type<CanActivate>>;
  shutdownGraceMs: number;
  capabilityTimeoutMs: number;
  capabilityTasks: Required<RestapCapabilityTaskOptions>;
  storage: Required<RestapStorageOptions>;
  replicas: Required<RestapReplicasOptions>;
  catalogCacheControl: string;
  auth: { oauth?: ResolvedRestapOAuthOptions };
  telemetry: Required<RestapTelemetryOptions>;
  approval: ResolvedRestapApprovalOptions;
  /** Where each enabled optional door is served (its `path`), e.g. `{ mcp: '/mcp' }`: for the kit's per-door metadata. */
  doorPaths: Readonly<Partial<Record<OptionalDoor, string>>>;
}

export interface ResolvedRestapApprovalOptions {
  require?: RestapApprovalOptions['require'];
  ttlMs: number;
  identify: (caller: RestapCaller) => string;
  /** The secret's bytes (at least 32), when one is set. */
  requestStateSecret?: Buffer;
}

/** Extras given beside the options to both forRoot and forRootAsync (route paths must be known statically). */
export interface RestapModuleExtras {
  /** Path of the talk route. @default '/talk' */
  talkPath?: string;
  /** Path of the news route. @default '/news' */
  newsPath?: string;
  /**
   * Name of the TypeORM DataSource holding the RESTAP tables, as given to
   * `TypeOrmModule.forRoot({ name })` (what `@InjectDataSource(name)` takes). @default the unnamed (default) DataSource
   */
  dataSource?: string;
  /**
   * `forRootAsync` only: the doors its options may enable. Only these doors' modules (and SDKs:
   * `@modelcontextprotocol/*` for MCP, `@a2a-js/sdk` for A2A, `@ag-ui/*` for AG-UI) are loaded; options that enable
   * another door are refused at start-up. `forRoot` loads exactly the doors its options enable.
   * @default ['mcp', 'a2a', 'playground', 'agui']
   */
  doors?: readonly OptionalDoor[];
  /**
   * Decorators applied to every route the module owns — the /talk and /news controllers and the
   * endpoints the host's guards see on MCP and A2A — as if written on a controller class of yours.
   * The way to exempt them from a global guard: `routeDecorators: [Public()]` for the Nest docs'
   * `@Public()` pattern, `[SkipThrottle()]` for @nestjs/throttler. Each must work on a class
   * (`SetMetadata()`, `applyDecorators()` of class decorators). @default []
   *
   * @example
   * RestapModule.forRoot({ agent: { name: 'Notes Agent' }, routeDecorators: [Public()] })
   */
  routeDecorators?: ClassDecorator[];
}

/** The doors besides RESTAP's own (which is always open), each loaded only when it may be enabled. */
export type OptionalDoor = 'mcp' | 'a2a' | 'playground' | 'agui';
