import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';
import { checkDoorPath, positiveInt } from '../../core/options/option-checks';
import type { ResolvedRestapCoreOptions } from '../../interfaces/restap-options.interface';

/**
 * The MCP door: the app's capabilities, talk and news over MCP Streamable HTTP (official SDK), for
 * 2025-era clients (`initialize`) and 2026-07-28 clients (`server/discover`) on one URL.
 */
export interface RestapMcpOptions {
  /** Serve the MCP endpoint (and advertise it in the catalog's `protocols.mcp`). @default false */
  enabled?: boolean;
  /** Where, as served (the app's global prefix is not added, as for the catalog). @default '/mcp' */
  path?: string;
  /**
   * Hostnames whose browser pages may call the endpoint (the `Origin` header, checked against DNS
   * rebinding as the MCP transport requires), e.g. `['app.example.com']`, or `'<scheme>://*'`
   * entries. Requests without `Origin` (every non-browser client) pass; `localhost`,
   * `127.0.0.1` and `[::1]` always pass; any other origin gets 403. @default []
   */
  allowedOrigins?: string[];
  /**
   * The stateful mode for 2025-era clients (`initialize`, protocol 2025-11-25 and before): the
   * handshake opens a session (`Mcp-Session-Id`, kept in PostgreSQL so any replica serves it),
   * the client may open the GET stream, `resources/subscribe` to `restap://news` and receive
   * `notifications/resources/updated` when an item is committed on any replica, and DELETE ends
   * the session. 2025-era requests without a session id are still served statelessly, and
   * 2026-07-28 clients are unaffected (they subscribe through `subscriptions/listen`). `true` for
   * the defaults. @default false (stateless for every era)
   */
  sessions?: boolean | RestapMcpSessionOptions;
}

/** The stateful mode of the MCP door for 2025-era clients (`mcp.sessions`). */
export interface RestapMcpSessionOptions {
  /** A session unused this long is gone (its next request gets 404 and the client initializes again), ms. @default 86400000 (24 h) */
  ttlMs?: number;
  /** An instance keeps a session's server in memory this long after its last request (and while its GET stream is open); it is rebuilt from PostgreSQL on the next request, ms. @default 600000 */
  idleMs?: number;
  /** Sessions one instance keeps in memory at most; past it the least recently used without an open GET stream is let go. @default 1000 */
  maxPerInstance?: number;
}

/** `mcp` with every default filled in. */
export interface ResolvedRestapMcpOptions {
  enabled: boolean;
  path: string;
  allowedOrigins: string[];
  sessions: Required<RestapMcpSessionOptions> | false;
}

/** What the MCP door reads: the core's options and its own slice. */
export type McpDoorOptions = ResolvedRestapCoreOptions & { mcp: ResolvedRestapMcpOptions };

/** Validates `mcp` and fills in its defaults (the one place they live). */
export function resolveMcpOptions(value: RestapMcpOptions | undefined): ResolvedRestapMcpOptions {
  if (value !== undefined && (!value || typeof value !== 'object')) {
    throw new RestapBootstrapError('RestapModule option mcp must be { enabled?: boolean, path?: string, allowedOrigins?: string[] }.');
  }
  const enabled = value?.enabled ?? false;
  const path = value?.path ?? '/mcp';
  const allowedOrigins = value?.allowedOrigins ?? [];
  if (typeof enabled !== 'boolean') throw new RestapBootstrapError('RestapModule option mcp.enabled must be a boolean.');
  checkDoorPath(path, 'mcp.path', '/mcp');
  if (!Array.isArray(allowedOrigins) || !allowedOrigins.every((o) => typeof o === 'string' && o.trim() !== '')) {
    throw new RestapBootstrapError("RestapModule option mcp.allowedOrigins must be a list of hostnames, e.g. ['app.example.com'].");
  }
  return { enabled, path, allowedOrigins: [...allowedOrigins], sessions: resolveMcpSessions(value?.sessions) };
}

function resolveMcpSessions(value: RestapMcpOptions['sessions']): ResolvedRestapMcpOptions['sessions'] {
  if (value === undefined || value === false) return false;
  const sessions = value === true ? {} : value;
  if (!sessions || typeof sessions !== 'object') throw new RestapBootstrapError('RestapModule option mcp.sessions must be true, false or { ttlMs?, idleMs?, maxPerInstance? }.');
  positiveInt(sessions.ttlMs, 'mcp.sessions.ttlMs');
  positiveInt(sessions.idleMs, 'mcp.sessions.idleMs');
  positiveInt(sessions.maxPerInstance, 'mcp.sessions.maxPerInstance');
  return { ttlMs: sessions.ttlMs ?? 86_400_000, idleMs: sessions.idleMs ?? 600_000, maxPerInstance: sessions.maxPerInstance ?? 1000 };
}
