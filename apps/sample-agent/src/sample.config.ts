import { resolve } from 'node:path';
import { databaseTargetFromEnv, DatabaseTarget } from './database/database.options';
import { llmConfigFromEnv, type LlmConfig } from './brain/llm.config';

/** Everything the sample reads from its environment, read in one place. */
export interface SampleConfig {
  database: DatabaseTarget;
  newsScope: 'global' | 'session';
  /** The LLM behind /talk; undefined runs the offline responder. */
  llm?: LlmConfig;
  /** RESTAP_BENCH=1: instant talk replies for `npm run bench`. */
  bench?: boolean;
  /** RESTAP_HEARTBEAT_MS: SSE heartbeat interval (talk.heartbeatMs); unset: the module default. */
  heartbeatMs?: number;
  /** RESTAP_MAX_STREAMS: open SSE streams on this instance (talk.maxStreams); unset: the module default. */
  maxStreams?: number;
  /** RESTAP_MAX_STREAMS_PER_CLIENT (talk.maxStreamsPerClient); unset: RESTAP_MAX_STREAMS if set, else the module default. */
  maxStreamsPerClient?: number;
  /** RESTAP_RATE_LIMIT: requests per minute per client on each /talk and /news route; 0 or unset in code: off. */
  rateLimitPerMinute?: number;
  /** RESTAP_REDIS_URL: count the rate limit in this Redis, shared by every replica (rateLimit.redis). */
  redisUrl?: string;
  /** RESTAP_TRUST_PROXY: Express's `trust proxy` (hops as a number, or addresses/`loopback`…), so `req.ip` is the client behind a proxy. */
  trustProxy?: number | string;
  /**
   * RESTAP_OAUTH_ISSUER (the authorization server's URL) and RESTAP_OAUTH_AUDIENCE (the agent's
   * public base URL, the tokens' `aud`; default `http://localhost:<PORT or 3000>`): OAuth 2.1 on
   * every door (auth.oauth); `text.reverse` then needs the scope `text:reverse`.
   * RESTAP_OAUTH_PLAYGROUND_CLIENT_ID: the playground's public client (authorization code + PKCE,
   * redirect URI `<audience>/playground`), so the page can sign a person in. `scopesSupported`
   * (no variable; tests): the metadata's scopes, what a first sign-in asks for.
   */
  oauth?: { issuer: string; audience: string; introspection?: { clientId: string; clientSecret: string }; playgroundClientId?: string; scopesSupported?: string[] };
  /** RESTAP_API_KEY: when set, /talk, /news and the text capabilities need it (Bearer or X-API-Key). */
  apiKey?: string;
  /** RESTAP_SHUTDOWN_GRACE_MS: how long open /talk turns may finish on SIGTERM; unset: the module default. */
  shutdownGraceMs?: number;
  /** RESTAP_REPLICA_HEARTBEAT_MS: how often this instance writes its heartbeat (replicas.heartbeatMs); unset: the module default. */
  replicaHeartbeatMs?: number;
  /** RESTAP_NOTES_DIGEST_STEP_MS: how long the `notes.digest` job spends on each note, ms; default 500. */
  notesDigestStepMs?: number;
  /** RESTAP_ORPHAN_AFTER_MS: silence after which an instance's open work is ended by the others (replicas.orphanAfterMs); unset: the module default. */
  orphanAfterMs?: number;
  /** RESTAP_ACCESS_LOG=1: one log line per request (method, path with session_id redacted, status, ms). */
  accessLog?: boolean;
  /**
   * RESTAP_TALK_RESUME=0 turns resumable /talk streams (talk.resume, docs/resumable-talk.md) off;
   * on by default from the environment. Unset in code (tests): off.
   */
  resume?: boolean;
  /** RESTAP_PLAYGROUND=0 turns the playground page (and the redirect of GET / to it) off; on by default. */
  playground?: boolean;
  /** RESTAP_AGUI=0 turns the AG-UI door (POST /ag-ui) off; on by default, like the MCP and A2A doors. */
  agui?: boolean;
  /**
   * RESTAP_PACKAGES_DIR (default `dist/packages`, where `npm run build` packs the client): the
   * tarballs the agent serves under /packages and advertises in its catalog.
   */
  packagesDir?: string;
  /**
   * RESTAP_A2A_PUSH_ALLOW_HOSTS: comma-separated webhook hosts A2A push notifications may reach
   * although they are loopback or private (a2a.pushNotifications.allowHosts); unset: public hosts only.
   */
  pushAllowHosts?: string[];
  /** RESTAP_MCP_SESSIONS=0 turns off the stateful mode for 2025-era MCP clients (mcp.sessions); on by default. */
  mcpSessions?: boolean;
  /**
   * RESTAP_MCP_CONFORMANCE_FIXTURES=1: the `test_*` capabilities the official MCP conformance suite calls by name
   * (scripts/mcp-conformance.sh sets it); off by default, never in the catalog otherwise.
   */
  mcpConformanceFixtures?: boolean;
  /**
   * RESTAP_REQUIRE_APPROVAL: comma-separated capability ids (e.g. `text.reverse`) that a person must
   * approve before any door runs them (the module's `approval.require`; docs/approvals.md).
   */
  requireApproval?: string[];
  /**
   * RESTAP_APPROVAL_STATE_SECRET: at least 32 bytes, the same on every replica; seals the MCP
   * input-required round-trip that asks 2026-07-28 clients for an approval in-band (the module's
   * `approval.requestStateSecret`). Unset: those clients resend the call with the decision in `_meta`.
   */
  approvalStateSecret?: string;
  /**
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: traces record message text and tool
   * arguments and results (the module's `telemetry.captureContent`); off by default.
   */
  captureContent?: boolean;
}

/** Requests per minute when RESTAP_RATE_LIMIT is unset (a person or a polling agent stays far below it). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 120;

/** Reads the sample's environment; a malformed value stops startup with what to fix. */
export function sampleConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SampleConfig {
  const scope = env.RESTAP_NEWS_SCOPE ?? 'global';
  if (scope !== 'global' && scope !== 'session') {
    throw new Error(`RESTAP_NEWS_SCOPE must be 'global' or 'session', got '${scope}'.`);
  }
  const llm = llmConfigFromEnv(env);
  const maxStreams = intFromEnv(env, 'RESTAP_MAX_STREAMS', 1);
  const config: SampleConfig = {
    database: databaseTargetFromEnv(env),
    newsScope: scope,
    ...(llm ? { llm } : {}),
    bench: env.RESTAP_BENCH === '1',
    heartbeatMs: intFromEnv(env, 'RESTAP_HEARTBEAT_MS', 1),
    maxStreams,
    maxStreamsPerClient: intFromEnv(env, 'RESTAP_MAX_STREAMS_PER_CLIENT', 1) ?? maxStreams,
    rateLimitPerMinute: intFromEnv(env, 'RESTAP_RATE_LIMIT', 0) ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    redisUrl: redisUrlFromEnv(env),
    trustProxy: trustProxyFromEnv(env),
    apiKey: env.RESTAP_API_KEY?.trim() || undefined,
    oauth: oauthFromEnv(env),
    shutdownGraceMs: intFromEnv(env, 'RESTAP_SHUTDOWN_GRACE_MS', 1),
    replicaHeartbeatMs: intFromEnv(env, 'RESTAP_REPLICA_HEARTBEAT_MS', 1),
    orphanAfterMs: intFromEnv(env, 'RESTAP_ORPHAN_AFTER_MS', 1),
    notesDigestStepMs: intFromEnv(env, 'RESTAP_NOTES_DIGEST_STEP_MS', 1),
    accessLog: env.RESTAP_ACCESS_LOG === '1',
    playground: env.RESTAP_PLAYGROUND !== '0',
    agui: env.RESTAP_AGUI !== '0',
    resume: env.RESTAP_TALK_RESUME !== '0',
    packagesDir: resolve(env.RESTAP_PACKAGES_DIR || 'dist/packages'),
    pushAllowHosts: listFromEnv(env.RESTAP_A2A_PUSH_ALLOW_HOSTS),
    mcpSessions: env.RESTAP_MCP_SESSIONS !== '0',
    mcpConformanceFixtures: env.RESTAP_MCP_CONFORMANCE_FIXTURES === '1',
    requireApproval: listFromEnv(env.RESTAP_REQUIRE_APPROVAL),
    approvalStateSecret: env.RESTAP_APPROVAL_STATE_SECRET?.trim() || undefined,
    captureContent: env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true' ? true : undefined,
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined)) as unknown as SampleConfig;
}

function oauthFromEnv(env: NodeJS.ProcessEnv): SampleConfig['oauth'] {
  const issuer = env.RESTAP_OAUTH_ISSUER?.trim();
  if (!issuer) return undefined;
  const audience = env.RESTAP_OAUTH_AUDIENCE?.trim() || `http://localhost:${Number(env.PORT) || 3000}`;
  // RESTAP_OAUTH_CLIENT_ID / RESTAP_OAUTH_CLIENT_SECRET: the agent's own credentials, to introspect opaque tokens.
  const clientId = env.RESTAP_OAUTH_CLIENT_ID?.trim();
  const clientSecret = env.RESTAP_OAUTH_CLIENT_SECRET?.trim();
  const playgroundClientId = env.RESTAP_OAUTH_PLAYGROUND_CLIENT_ID?.trim();
  return {
    issuer,
    audience,
    ...(clientId && clientSecret ? { introspection: { clientId, clientSecret } } : {}),
    ...(playgroundClientId ? { playgroundClientId } : {}),
  };
}

function trustProxyFromEnv(env: NodeJS.ProcessEnv): number | string | undefined {
  const raw = env.RESTAP_TRUST_PROXY?.trim();
  if (!raw) return undefined;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

function redisUrlFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const url = env.RESTAP_REDIS_URL?.trim();
  if (url && !/^rediss?:\/\//.test(url)) throw new Error(`RESTAP_REDIS_URL must be a Redis URL such as redis://127.0.0.1:6379/0, got '${url}'.`);
  return url || undefined;
}

function intFromEnv(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new Error(`${name} must be an integer of at least ${min}, got '${raw}'.`);
  }
  return Number(raw);
}

/** A comma-separated list, blanks dropped; undefined when empty. */
function listFromEnv(raw: string | undefined): string[] | undefined {
  const list = (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return list.length ? list : undefined;
}
