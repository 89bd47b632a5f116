import { CAPABILITY_ID_PATTERN } from './restap.constants';
import { RestapBootstrapError } from './exceptions/restap-bootstrap.error';
import { createHash } from 'node:crypto';
import type { ResolvedRestapA2aOptions, ResolvedRestapApprovalOptions, RestapA2aOptions, ResolvedRestapOptions, RestapCorsOptions, RestapMcpOptions, RestapModuleOptions, RestapPlaygroundOptions, RestapAguiOptions, RestapRateLimitOptions, RestapTelemetryOptions, RestapTalkOptions, RestapTalkResumeOptions } from './interfaces/restap-options.interface';

const positiveInt = (value: unknown, field: string, required = false): void => {
  if ((required || value !== undefined) && (!Number.isInteger(value) || (value as number) <= 0)) {
    throw new RestapBootstrapError(`RestapModule option ${field} must be a positive integer, got ${JSON.stringify(value)}.`);
  }
};

/** Validates the user's options and fills in every default. The one place defaults live. */
export function resolveOptions(options: RestapModuleOptions): ResolvedRestapOptions {
  if (!options || typeof options !== 'object') {
    throw new RestapBootstrapError('RestapModule needs options: RestapModule.forRoot({ agent: { name: "My Agent" } }).');
  }
  const { agent } = options;
  if (!agent || typeof agent.name !== 'string' || !agent.name.trim()) {
    throw new RestapBootstrapError('RestapModule option agent.name is required: a non-empty string naming the agent in the catalog.');
  }
  for (const field of ['description', 'contact'] as const) {
    if (agent[field] !== undefined && typeof agent[field] !== 'string') {
      throw new RestapBootstrapError(`RestapModule option agent.${field} must be a string.`);
    }
  }
  for (const [i, pkg] of (options.packages ?? []).entries()) {
    if (!pkg || typeof pkg.name !== 'string' || typeof pkg.type !== 'string') {
      throw new RestapBootstrapError(`RestapModule option packages[${i}] needs string "name" and "type" (spec, "Optional Packages").`);
    }
  }
  for (const [name, protocol] of Object.entries(options.protocols ?? {})) {
    if (!protocol || typeof protocol.available !== 'boolean' || (protocol.endpoint !== undefined && typeof protocol.endpoint !== 'string')) {
      throw new RestapBootstrapError(`RestapModule option protocols.${name} must be { available: boolean, endpoint?: string }.`);
    }
  }
  const talk = options.talk === false ? undefined : (options.talk ?? {});
  const news = options.news === false ? undefined : (options.news ?? {});
  for (const [field, value] of Object.entries({
    'talk.maxMessageLength': talk?.maxMessageLength,
    'talk.historyLimit': talk?.historyLimit,
    'talk.heartbeatMs': talk?.heartbeatMs,
    'talk.timeoutMs': talk?.timeoutMs,
    'talk.maxStreams': talk?.maxStreams,
    'talk.maxStreamsPerClient': talk?.maxStreamsPerClient,
    'talk.contextBudget.totalChars': talk?.contextBudget?.totalChars,
    'talk.contextBudget.itemChars': talk?.contextBudget?.itemChars,
    'talk.toolTimeoutMs': talk?.toolTimeoutMs,
    capabilityTimeoutMs: options.capabilityTimeoutMs,
    'capabilityTasks.timeoutMs': options.capabilityTasks?.timeoutMs,
    'capabilityTasks.ttlMs': options.capabilityTasks?.ttlMs,
    'news.maxTypeLength': news?.maxTypeLength,
    'news.defaultLimit': news?.defaultLimit,
    'news.maxLimit': news?.maxLimit,
    'news.contextLimit': news?.contextLimit,
    'news.resyncMs': news?.resyncMs,
    'news.maxWaiting': news?.maxWaiting,
    'news.maxWaitingPerClient': news?.maxWaitingPerClient,
    'limits.bodyBytes': options.limits?.bodyBytes,
    'limits.maxJsonDepth': options.limits?.maxJsonDepth,
    'limits.lingeringCloseMs': options.limits?.lingeringCloseMs,
    'limits.lingeringCloseBytes': options.limits?.lingeringCloseBytes,
    shutdownGraceMs: options.shutdownGraceMs,
    'replicas.heartbeatMs': options.replicas?.heartbeatMs,
    'replicas.orphanAfterMs': options.replicas?.orphanAfterMs,
  })) positiveInt(value, field);
  const replicas = { heartbeatMs: options.replicas?.heartbeatMs ?? 5_000, orphanAfterMs: options.replicas?.orphanAfterMs ?? 30_000 };
  if (replicas.orphanAfterMs < 2 * replicas.heartbeatMs) {
    throw new RestapBootstrapError(
      `RestapModule option replicas.orphanAfterMs (${replicas.orphanAfterMs}) must be at least twice replicas.heartbeatMs (${replicas.heartbeatMs}): one late heartbeat must not make a live instance's work look orphaned.`,
    );
  }
  if (news?.scope !== undefined && news.scope !== 'global' && news.scope !== 'session') {
    throw new RestapBootstrapError(`RestapModule option news.scope must be 'global' or 'session', got ${JSON.stringify(news.scope)}.`);
  }
  for (const event of talk?.events ?? []) {
    if (!CAPABILITY_ID_PATTERN.test(event)) throw new RestapBootstrapError(`RestapModule option talk.events has an invalid event name ${JSON.stringify(event)}.`);
  }
  const rateLimit = resolveRateLimit(options.rateLimit);
  const cors = resolveCors(options.cors, news?.scope ?? 'global');
  const maxLimit = news?.maxLimit ?? 1000;
  const mcp = resolveMcp(options.mcp);
  const agui = resolveAgui(options.agui);
  // An enabled door is advertised from its own option, whatever `protocols` said about it.
  const served = {
    ...(mcp.enabled ? { mcp: { available: true, endpoint: mcp.path } } : {}),
    ...(agui.enabled ? { agui: { available: true, endpoint: agui.path } } : {}),
  };
  const protocols = mcp.enabled || agui.enabled ? { ...options.protocols, ...served } : options.protocols && { ...options.protocols };
  const auth = resolveAuth(options.auth);
  if (auth.oauth && mcp.enabled && mcp.sessions) {
    // A 2025-era session's server is built once, at initialize, whoever calls later: its tools/list
    // could not follow each token's scopes (calls would still be refused, lists would not).
    throw new RestapBootstrapError('RestapModule options auth.oauth and mcp.sessions do not go together yet: a stateful MCP session lists its tools once, not per token. Set mcp.sessions: false (2025-era clients then talk statelessly, which works with OAuth).');
  }
  return {
    agent: { ...agent },
    talk: {
      enabled: talk !== undefined,
      streaming: talk?.streaming ?? true,
      sessions: talk?.sessions ?? true,
      maxMessageLength: talk?.maxMessageLength ?? 100_000,
      historyLimit: talk?.historyLimit ?? 50,
      contextBudget: { totalChars: talk?.contextBudget?.totalChars ?? 64_000, itemChars: talk?.contextBudget?.itemChars ?? 8_000 },
      systemPrompt: talk?.systemPrompt,
      heartbeatMs: talk?.heartbeatMs ?? 15_000,
      timeoutMs: talk?.timeoutMs ?? 120_000,
      maxStreams: talk?.maxStreams ?? 5000,
      maxStreamsPerClient: talk?.maxStreamsPerClient ?? 50,
      events: [...(talk?.events ?? [])],
      tools: talk?.tools ?? true,
      title: talk?.title ?? 'Talk to agent',
      description: talk?.description ?? 'Send messages to the agent (triggers LLM processing)',
      resume: resolveResume(talk),
    },
    news: {
      enabled: news !== undefined,
      scope: news?.scope ?? 'global',
      maxTypeLength: news?.maxTypeLength ?? 200,
      defaultLimit: Math.min(news?.defaultLimit ?? 100, maxLimit),
      maxLimit,
      contextLimit: news?.contextLimit ?? 20,
      wakeups: resolveWakeups(news?.wakeups),
      resyncMs: news?.resyncMs ?? 5_000,
      maxWaiting: news?.maxWaiting ?? 5000,
      maxWaitingPerClient: news?.maxWaitingPerClient ?? 50,
    },
    packages: options.packages?.map((p) => ({ ...p })),
    protocols,
    limits: {
      bodyBytes: options.limits?.bodyBytes ?? 1024 * 1024,
      maxJsonDepth: options.limits?.maxJsonDepth ?? 64,
      lingeringCloseMs: options.limits?.lingeringCloseMs ?? 10_000,
      lingeringCloseBytes: options.limits?.lingeringCloseBytes ?? 16 * 1024 * 1024,
    },
    rateLimit,
    ...(cors ? { cors } : {}),
    guards: [...(options.guards ?? [])],
    shutdownGraceMs: options.shutdownGraceMs ?? 10_000,
    capabilityTimeoutMs: options.capabilityTimeoutMs ?? talk?.toolTimeoutMs ?? 30_000,
    capabilityTasks: { timeoutMs: options.capabilityTasks?.timeoutMs ?? 600_000, ttlMs: options.capabilityTasks?.ttlMs ?? 3_600_000 },
    storage: {
      requireSynchronousCommit: options.storage?.requireSynchronousCommit ?? false,
      preparedStatements: options.storage?.preparedStatements ?? true,
    },
    replicas,
    a2a: resolveA2a(options.a2a),
    catalogCacheControl: options.catalogCacheControl ?? 'public, max-age=60',
    playground: resolvePlayground(options.playground),
    mcp,
    approval: resolveApproval(options.approval),
    telemetry: resolveTelemetry(options.telemetry),
    agui,
    auth,
  };
}

const OAUTH_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

function resolveAuth(value: RestapModuleOptions['auth']): ResolvedRestapOptions['auth'] {
  if (value === undefined) return {};
  if (!value || typeof value !== 'object') throw new RestapBootstrapError('RestapModule option auth must be an object: { oauth?: { issuer, audience } }.');
  const oauth = value.oauth;
  if (oauth === undefined) return {};
  const url = (field: 'issuer' | 'audience' | 'jwksUri', required: boolean): string | undefined => {
    const raw = oauth[field];
    if (raw === undefined && !required) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = typeof raw === 'string' ? new URL(raw) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.hash) {
      throw new RestapBootstrapError(`RestapModule option auth.oauth.${field} must be an http(s) URL without a fragment, got ${JSON.stringify(raw)}.`);
    }
    return raw as string;
  };
  const issuer = url('issuer', true) as string;
  const audience = url('audience', true) as string;
  const jwksUri = url('jwksUri', false);
  const algorithms = oauth.algorithms ?? OAUTH_ALGORITHMS;
  if (!Array.isArray(algorithms) || !algorithms.length || algorithms.some((alg) => typeof alg !== 'string' || alg === 'none' || /^HS/i.test(alg))) {
    throw new RestapBootstrapError(`RestapModule option auth.oauth.algorithms must list asymmetric JWS algorithms (no 'none', no HS*), got ${JSON.stringify(oauth.algorithms)}.`);
  }
  if (oauth.clockTolerance !== undefined && (!Number.isInteger(oauth.clockTolerance) || oauth.clockTolerance < 0)) {
    throw new RestapBootstrapError(`RestapModule option auth.oauth.clockTolerance must be a whole number of seconds, got ${JSON.stringify(oauth.clockTolerance)}.`);
  }
  positiveInt(oauth.jwksCacheMaxAgeMs, 'auth.oauth.jwksCacheMaxAgeMs');
  const requiredScopes: Record<string, string[]> = {};
  for (const [id, scopes] of Object.entries(oauth.requiredScopes ?? {})) {
    if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || !SCOPE_TOKEN.test(scope))) {
      throw new RestapBootstrapError(`RestapModule option auth.oauth.requiredScopes['${id}'] must be a list of OAuth scope tokens, got ${JSON.stringify(scopes)}.`);
    }
    requiredScopes[id] = [...scopes];
  }
  const introspection = oauth.introspection;
  if (introspection !== undefined) {
    if (!introspection || typeof introspection.clientId !== 'string' || !introspection.clientId || typeof introspection.clientSecret !== 'string' || !introspection.clientSecret) {
      throw new RestapBootstrapError('RestapModule option auth.oauth.introspection must be { clientId, clientSecret, endpoint? } (non-empty strings).');
    }
    if (introspection.endpoint !== undefined && !/^https?:\/\//.test(introspection.endpoint)) {
      throw new RestapBootstrapError(`RestapModule option auth.oauth.introspection.endpoint must be an http(s) URL, got ${JSON.stringify(introspection.endpoint)}.`);
    }
  }
  return {
    oauth: {
      ...(introspection ? { introspection: { ...introspection } } : {}),
      issuer,
      audience,
      ...(jwksUri ? { jwksUri } : {}),
      algorithms: [...algorithms],
      clockTolerance: oauth.clockTolerance ?? 5,
      requiredScopes,
      ...(oauth.scopesSupported ? { scopesSupported: [...oauth.scopesSupported] } : {}),
      jwksCacheMaxAgeMs: oauth.jwksCacheMaxAgeMs ?? 600_000,
    },
  };
}

/** RFC 6749's scope-token: printable ASCII but space, `"` and `\\`. */
const SCOPE_TOKEN = /^[\u0021\u0023-\u005B\u005D-\u007E]+$/;

function resolveApproval(value: RestapModuleOptions['approval']): ResolvedRestapApprovalOptions {
  if (value !== undefined && (!value || typeof value !== 'object')) {
    throw new RestapBootstrapError('RestapModule option approval must be { require?, ttlMs?, identify? }.');
  }
  for (const field of ['require', 'identify'] as const) {
    if (value?.[field] !== undefined && typeof value[field] !== 'function') {
      throw new RestapBootstrapError(`RestapModule option approval.${field} must be a function.`);
    }
  }
  positiveInt(value?.ttlMs, 'approval.ttlMs');
  const identify = value?.identify;
  return {
    ...(value?.require ? { require: value.require } : {}),
    ttlMs: value?.ttlMs ?? 15 * 60_000,
    identify: identify ? (caller) => identify(caller) || fingerprintOf(caller) : fingerprintOf,
  };
}

/** A caller's credentials as a fingerprint fit for an audit row: the credential itself never is. */
function fingerprintOf(caller: { headers: Record<string, string | string[] | undefined> }): string {
  const credentials = credentialsOf(caller);
  return credentials ? `cred:${createHash('sha256').update(credentials).digest('hex').slice(0, 16)}` : 'anonymous';
}

/** Path segments of URL-safe characters; no `.` or `..` segment, no trailing slash (the doors' paths). */
const DOOR_PATH = /^(\/(?!\.{1,2}(?:\/|$))[A-Za-z0-9._~-]+)+$/;

/** A door switched by `{ enabled?, path? }` (the playground, AG-UI): off unless enabled, at `defaultPath`. */
function resolveDoorSwitch(name: string, value: { enabled?: unknown; path?: unknown } | undefined, defaultPath: string): { enabled: boolean; path: string } {
  if (value !== undefined && (!value || typeof value !== 'object')) {
    throw new RestapBootstrapError(`RestapModule option ${name} must be { enabled?: boolean, path?: string }.`);
  }
  const enabled = value?.enabled ?? false;
  const path = value?.path ?? defaultPath;
  if (typeof enabled !== 'boolean') throw new RestapBootstrapError(`RestapModule option ${name}.enabled must be a boolean.`);
  if (typeof path !== 'string' || !DOOR_PATH.test(path)) {
    throw new RestapBootstrapError(`RestapModule option ${name}.path must be a path such as '${defaultPath}' (segments of letters, digits, '-', '_', '.', '~'), got ${JSON.stringify(path)}.`);
  }
  return { enabled, path };
}

function resolvePlayground(value: RestapModuleOptions['playground']): Required<RestapPlaygroundOptions> {
  return resolveDoorSwitch('playground', value, '/playground');
}

/**
 * The default A2A identity: the credential the caller sent — a bearer token or an `X-API-Key`
 * (the same key either way), else the whole `Authorization` value. Hashed before storage.
 */
function credentialsOf(caller: { headers: Record<string, string | string[] | undefined>; auth?: { issuer: string; subject?: string; clientId: string } }): string | undefined {
  // An OAuth caller is who its tokens name, not one token: tasks stay theirs when the token is renewed.
  if (caller.auth) return `oauth:${caller.auth.issuer} ${caller.auth.subject ?? `client:${caller.auth.clientId}`}`;
  const { authorization, 'x-api-key': apiKey } = caller.headers;
  const bearer = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (bearer) return `key:${bearer}`;
  if (typeof apiKey === 'string' && apiKey.trim()) return `key:${apiKey.trim()}`;
  if (typeof authorization === 'string' && authorization.trim()) return `authorization:${authorization.trim()}`;
  return undefined;
}

function resolveA2a(value: RestapModuleOptions['a2a']): ResolvedRestapA2aOptions {
  const a2a = value ?? {};
  if (typeof a2a !== 'object') throw new RestapBootstrapError('RestapModule option a2a must be an object: { enabled, path }.');
  const path = a2a.path ?? '/a2a';
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9._~\/-]*[A-Za-z0-9._~-]$/.test(path) || path.startsWith('/.well-known')) {
    throw new RestapBootstrapError(`RestapModule option a2a.path must be an absolute path such as '/a2a', got ${JSON.stringify(path)}.`);
  }
  if (a2a.baseUrl !== undefined && !/^https?:\/\/[^/]+$/.test(a2a.baseUrl.replace(/\/+$/, ''))) {
    throw new RestapBootstrapError(`RestapModule option a2a.baseUrl must be a scheme and host such as 'https://agent.example.com', got ${JSON.stringify(a2a.baseUrl)}.`);
  }
  if (a2a.identify !== undefined && typeof a2a.identify !== 'function') {
    throw new RestapBootstrapError('RestapModule option a2a.identify must be a function (caller) => string | undefined.');
  }
  positiveInt(a2a.maxParts, 'a2a.maxParts');
  positiveInt(a2a.maxMessageChars, 'a2a.maxMessageChars');
  const restPath = a2a.restPath === undefined ? `${path}/rest` : a2a.restPath;
  if (restPath !== false && (typeof restPath !== 'string' || !/^\/[A-Za-z0-9._~\/-]*[A-Za-z0-9._~-]$/.test(restPath) || restPath === path || restPath.startsWith('/.well-known'))) {
    throw new RestapBootstrapError(`RestapModule option a2a.restPath must be an absolute path other than a2a.path, such as '/a2a/rest', or false; got ${JSON.stringify(restPath)}.`);
  }
  return {
    enabled: a2a.enabled === true,
    path,
    restPath,
    pushNotifications: resolveA2aPush(a2a.pushNotifications),
    ...(a2a.baseUrl ? { baseUrl: a2a.baseUrl.replace(/\/+$/, '') } : {}),
    version: a2a.version ?? '1.0.0',
    securitySchemes: { ...(a2a.securitySchemes ?? {}) },
    identify: a2a.identify ?? credentialsOf,
    maxParts: a2a.maxParts ?? 64,
    maxMessageChars: a2a.maxMessageChars ?? 100_000,
  };
}

function resolveA2aPush(value: RestapA2aOptions['pushNotifications']): ResolvedRestapA2aOptions['pushNotifications'] {
  if (value === false) return false;
  const push = value ?? {};
  if (typeof push !== 'object') throw new RestapBootstrapError('RestapModule option a2a.pushNotifications must be an object or false.');
  const allowHosts = push.allowHosts ?? [];
  if (allowHosts !== '*' && (!Array.isArray(allowHosts) || allowHosts.some((h) => typeof h !== 'string' || !h.trim()))) {
    throw new RestapBootstrapError("RestapModule option a2a.pushNotifications.allowHosts must be a list of hostnames, e.g. ['127.0.0.1'], or '*'.");
  }
  positiveInt(push.timeoutMs, 'a2a.pushNotifications.timeoutMs');
  positiveInt(push.retryBackoffMs, 'a2a.pushNotifications.retryBackoffMs');
  positiveInt(push.maxConfigsPerTask, 'a2a.pushNotifications.maxConfigsPerTask');
  if (push.retries !== undefined && (!Number.isInteger(push.retries) || push.retries < 0)) {
    throw new RestapBootstrapError('RestapModule option a2a.pushNotifications.retries must be a whole number ≥ 0.');
  }
  return {
    allowHosts: allowHosts === '*' ? '*' : allowHosts.map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')),
    allowHttp: push.allowHttp ?? true,
    timeoutMs: push.timeoutMs ?? 5_000,
    retries: push.retries ?? 3,
    retryBackoffMs: push.retryBackoffMs ?? 500,
    maxConfigsPerTask: push.maxConfigsPerTask ?? 10,
  };
}

function resolveMcp(value: RestapModuleOptions['mcp']): ResolvedRestapOptions['mcp'] {
  if (value !== undefined && (!value || typeof value !== 'object')) {
    throw new RestapBootstrapError('RestapModule option mcp must be { enabled?: boolean, path?: string, allowedOrigins?: string[] }.');
  }
  const enabled = value?.enabled ?? false;
  const path = value?.path ?? '/mcp';
  const allowedOrigins = value?.allowedOrigins ?? [];
  if (typeof enabled !== 'boolean') throw new RestapBootstrapError('RestapModule option mcp.enabled must be a boolean.');
  if (typeof path !== 'string' || !DOOR_PATH.test(path)) {
    throw new RestapBootstrapError(`RestapModule option mcp.path must be a path such as '/mcp' (segments of letters, digits, '-', '_', '.', '~'), got ${JSON.stringify(path)}.`);
  }
  if (!Array.isArray(allowedOrigins) || !allowedOrigins.every((o) => typeof o === 'string' && o.trim() !== '')) {
    throw new RestapBootstrapError("RestapModule option mcp.allowedOrigins must be a list of hostnames, e.g. ['app.example.com'].");
  }
  return { enabled, path, allowedOrigins: [...allowedOrigins], sessions: resolveMcpSessions(value?.sessions) };
}

function resolveMcpSessions(value: RestapMcpOptions['sessions']): ResolvedRestapOptions['mcp']['sessions'] {
  if (value === undefined || value === false) return false;
  const sessions = value === true ? {} : value;
  if (!sessions || typeof sessions !== 'object') throw new RestapBootstrapError('RestapModule option mcp.sessions must be true, false or { ttlMs?, idleMs?, maxPerInstance? }.');
  positiveInt(sessions.ttlMs, 'mcp.sessions.ttlMs');
  positiveInt(sessions.idleMs, 'mcp.sessions.idleMs');
  positiveInt(sessions.maxPerInstance, 'mcp.sessions.maxPerInstance');
  return { ttlMs: sessions.ttlMs ?? 86_400_000, idleMs: sessions.idleMs ?? 600_000, maxPerInstance: sessions.maxPerInstance ?? 1000 };
}

function resolveRateLimit(value: RestapModuleOptions['rateLimit']): RestapRateLimitOptions | false {
  if (value === undefined || value === false) return false;
  if (!value || typeof value !== 'object') {
    throw new RestapBootstrapError('RestapModule option rateLimit must be { limit, ttlMs } or false.');
  }
  for (const field of ['limit', 'ttlMs'] as const) positiveInt(value[field], `rateLimit.${field}`, true);
  if (value.redis !== undefined && (typeof value.redis !== 'string' || !/^rediss?:\/\//.test(value.redis))) {
    throw new RestapBootstrapError('RestapModule option rateLimit.redis must be a Redis URL such as redis://127.0.0.1:6379/0.');
  }
  if (value.postgres !== undefined && typeof value.postgres !== 'boolean') {
    throw new RestapBootstrapError('RestapModule option rateLimit.postgres must be true or false.');
  }
  const chosen = [value.redis !== undefined, value.postgres === true, value.storage !== undefined].filter(Boolean).length;
  if (chosen > 1) {
    throw new RestapBootstrapError('RestapModule option rateLimit: choose one of redis, postgres and storage.');
  }
  return { ...value };
}

function resolveWakeups(value: unknown): 'auto' | 'in-process' | { listenUrl: string } {
  if (value === undefined || value === 'auto') return 'auto';
  if (value === 'in-process') return value;
  const listenUrl = (value as { listenUrl?: unknown } | null)?.listenUrl;
  if (typeof listenUrl === 'string' && /^postgres(ql)?:\/\//.test(listenUrl)) return { listenUrl };
  throw new RestapBootstrapError("RestapModule option news.wakeups must be 'auto', 'in-process' or { listenUrl: 'postgres://…' }.");
}

function resolveCors(value: RestapCorsOptions | undefined, scope: 'global' | 'session'): Required<RestapCorsOptions> | undefined {
  if (value === undefined) return undefined;
  const { origins } = value ?? {};
  if (origins !== '*' && !(Array.isArray(origins) && origins.every((o) => typeof o === 'string' && o))) {
    throw new RestapBootstrapError("RestapModule option cors.origins must be a list of origins (e.g. ['https://app.example.com']) or '*'.");
  }
  if (origins === '*' && scope === 'session') {
    throw new RestapBootstrapError("RestapModule option cors.origins is '*' while news.scope is 'session': list the origins allowed to read session feeds instead.");
  }
  positiveInt(value.maxAgeSeconds, 'cors.maxAgeSeconds');
  return { origins: origins === '*' ? '*' : [...origins], maxAgeSeconds: value.maxAgeSeconds ?? 600 };
}

function resolveTelemetry(value: RestapModuleOptions['telemetry']): Required<RestapTelemetryOptions> {
  const captureContent = value?.captureContent ?? false;
  if (typeof captureContent !== 'boolean') throw new RestapBootstrapError('RestapModule option telemetry.captureContent must be a boolean.');
  return { captureContent };
}

function resolveAgui(value: RestapModuleOptions['agui']): Required<RestapAguiOptions> {
  return resolveDoorSwitch('agui', value, '/ag-ui');
}

/** `talk.resume` with its defaults; a resume that cannot work (no sessions, no streaming) fails startup. */
function resolveResume(talk: RestapTalkOptions | undefined): Required<RestapTalkResumeOptions> | false {
  const resume = talk?.resume;
  if (resume === undefined || resume === false) return false;
  if (resume !== true && (typeof resume !== 'object' || resume === null || Array.isArray(resume))) {
    throw new RestapBootstrapError(`RestapModule option talk.resume must be true, false or an object, got ${JSON.stringify(resume)}.`);
  }
  if (talk?.sessions === false || talk?.streaming === false) {
    throw new RestapBootstrapError(
      'RestapModule option talk.resume needs talk.sessions and talk.streaming: a stream is resumed with the session_id that owns it. Turn them on, or drop talk.resume.',
    );
  }
  const given = resume === true ? {} : resume;
  const resolved = {
    graceMs: given.graceMs ?? 300_000,
    maxFrames: given.maxFrames ?? 10_000,
    maxBytes: given.maxBytes ?? 1_048_576,
    flushMs: given.flushMs ?? 200,
    pollMs: given.pollMs ?? 250,
    retryMs: given.retryMs ?? 1_000,
  };
  for (const [key, value] of Object.entries(resolved)) {
    const least = key === 'graceMs' || key === 'retryMs' ? 0 : 1;
    if (!Number.isInteger(value) || value < least) {
      throw new RestapBootstrapError(`RestapModule option talk.resume.${key} must be an integer >= ${least}, got ${JSON.stringify(value)}.`);
    }
  }
  return resolved;
}
