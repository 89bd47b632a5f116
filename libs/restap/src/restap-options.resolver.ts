import { CAPABILITY_ID_PATTERN } from './restap.constants';
import { RestapBootstrapError } from './exceptions/restap-bootstrap.error';
import type { OptionalDoor, ResolvedRestapApprovalOptions, ResolvedRestapCoreOptions, RestapCorsOptions, RestapRateLimitOptions, RestapTelemetryOptions, RestapTalkOptions, RestapTalkResumeOptions } from './interfaces/restap-options.interface';
import type { ResolvedRestapOptions, RestapModuleOptions } from './restap-options';
import { positiveInt } from './core/options/option-checks';
import { fingerprintOf } from './core/auth/caller-credentials';
import { resolveA2aOptions } from './doors/a2a/a2a.options';
import { resolveAguiOptions } from './doors/agui/agui.options';
import { resolveMcpOptions } from './doors/mcp/mcp.options';
import { resolvePlaygroundOptions } from './doors/playground/playground.options';

/**
 * Validates the user's options and fills in every default: the core's here, each optional door's
 * from its own slice (`doors/<door>/<door>.options.ts`). Defaults live only in these files.
 */
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
  const mcp = resolveMcpOptions(options.mcp);
  const agui = resolveAguiOptions(options.agui);
  const a2a = resolveA2aOptions(options.a2a);
  const playground = resolvePlaygroundOptions(options.playground);
  // An enabled door is advertised from its own option, whatever `protocols` said about it.
  const served = {
    ...(mcp.enabled ? { mcp: { available: true, endpoint: mcp.path } } : {}),
    ...(agui.enabled ? { agui: { available: true, endpoint: agui.path } } : {}),
    ...(a2a.enabled ? { a2a: { available: true, endpoint: a2a.path } } : {}),
  };
  const protocols = Object.keys(served).length ? { ...options.protocols, ...served } : options.protocols && { ...options.protocols };
  const auth = resolveAuth(options.auth);
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
    a2a,
    catalogCacheControl: options.catalogCacheControl ?? 'public, max-age=60',
    playground,
    mcp,
    approval: resolveApproval(options.approval),
    telemetry: resolveTelemetry(options.telemetry),
    agui,
    auth,
    doorPaths: doorPathsOf({ mcp, a2a, playground, agui }),
  };
}

const OAUTH_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];

function resolveAuth(value: RestapModuleOptions['auth']): ResolvedRestapCoreOptions['auth'] {
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
  const playgroundClientId = oauth.playgroundClientId;
  if (playgroundClientId !== undefined && (typeof playgroundClientId !== 'string' || !CLIENT_ID.test(playgroundClientId))) {
    throw new RestapBootstrapError(`RestapModule option auth.oauth.playgroundClientId must be the playground's client id at the authorization server (a non-empty string of visible characters), got ${JSON.stringify(playgroundClientId)}.`);
  }
  return {
    oauth: {
      ...(introspection ? { introspection: { ...introspection } } : {}),
      ...(playgroundClientId ? { playgroundClientId } : {}),
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

/** RFC 6749's client_id: visible ASCII (VSCHAR). */
const CLIENT_ID = /^[\u0020-\u007E]+$/;

/** RFC 6749's scope-token: printable ASCII but space, `"` and `\\`. */
const SCOPE_TOKEN = /^[\u0021\u0023-\u005B\u005D-\u007E]+$/;

function resolveApproval(value: RestapModuleOptions['approval']): ResolvedRestapApprovalOptions {
  if (value !== undefined && (!value || typeof value !== 'object')) {
    throw new RestapBootstrapError('RestapModule option approval must be { require?, ttlMs?, identify?, requestStateSecret? }.');
  }
  for (const field of ['require', 'identify'] as const) {
    if (value?.[field] !== undefined && typeof value[field] !== 'function') {
      throw new RestapBootstrapError(`RestapModule option approval.${field} must be a function.`);
    }
  }
  positiveInt(value?.ttlMs, 'approval.ttlMs');
  const identify = value?.identify;
  const secret = requestStateSecretOf(value?.requestStateSecret);
  return {
    ...(value?.require ? { require: value.require } : {}),
    ttlMs: value?.ttlMs ?? 15 * 60_000,
    identify: identify ? (caller) => identify(caller) || fingerprintOf(caller) : fingerprintOf,
    ...(secret ? { requestStateSecret: secret } : {}),
  };
}

/** The sealing secret's bytes: a string (UTF-8) or bytes, at least 32 of them; unset or empty: none. */
function requestStateSecretOf(value: unknown): Buffer | undefined {
  if (value === undefined || value === '') return undefined;
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value instanceof Uint8Array ? Buffer.from(value) : undefined;
  if (!bytes || bytes.length < 32) {
    throw new RestapBootstrapError(
      'RestapModule option approval.requestStateSecret must be a string or bytes of at least 32 bytes, the same on every replica (e.g. `openssl rand -base64 32`).',
    );
  }
  return bytes;
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

/** The paths of the enabled optional doors. */
function doorPathsOf(doors: Record<OptionalDoor, { enabled: boolean; path: string }>): ResolvedRestapCoreOptions['doorPaths'] {
  return Object.fromEntries(Object.entries(doors).filter(([, door]) => door.enabled).map(([name, door]) => [name, door.path]));
}
