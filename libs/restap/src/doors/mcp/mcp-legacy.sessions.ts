import type { McpDoorOptions, RestapMcpSessionOptions } from './mcp.options';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { isInitializeRequest, legacyStatelessFallback, WebStandardStreamableHTTPServerTransport, type LegacyHttpHandler, type McpHandlerRequestOptions, type McpServer } from '@modelcontextprotocol/server';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { RESTAP_OPTIONS } from '../../restap.constants';

import { logLine } from '../kit/http/log-line';
import { endAtTokenExpiry, tokenDeadlineOf } from '../kit/auth/token-expiry';
import { McpServerFactory } from './mcp-server.factory';
import { mcpSessionHash, mcpSessionOwnerHash, McpSessionStore } from './mcp-session.store';
import { callOfRequest } from './mcp-call.context';
import { NEWS_URI } from './mcp-news';

/** One session served by this instance: the SDK's server and stateful transport for it. */
interface LocalSession {
  hash: Buffer;
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
  /** GET streams open on it here (it is not let go while one is). */
  streams: number;
  /** The `logging/setLevel` level its server was given here. */
  level: string | null;
}

/** The levels of `logging/setLevel` (RFC 5424, as MCP names them). */
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** How often idle sessions are let go (and listening ones checked), at most, ms; half `idleMs` when that is shorter. */
const SWEEP_MS = 30_000;

/**
 * The stateful mode for 2025-era MCP clients (`mcp.sessions`), on the SDK's own pieces: each
 * session is a `McpServer` connected to a stateful `WebStandardStreamableHTTPServerTransport`, which
 * answers the handshake with `Mcp-Session-Id`, validates it on every request (404 for an unknown
 * one), serves the GET stream and ends the session on DELETE.
 *
 * Any replica serves any session: the handshake (the client's `initialize` params) is kept in
 * PostgreSQL under the session id's hash; an instance that gets a request for a session it does
 * not hold builds the session's server and transport again with the same id and replays that
 * handshake into it (the same `initialize` and `notifications/initialized` the client sent), then
 * serves the request. Subscriptions (`resources/subscribe`) are kept there too, so the instance
 * holding a session's GET stream knows them whichever instance took the subscribe; when a news
 * item is committed on any replica (NewsWakeups, LISTEN/NOTIFY), each instance sends
 * `notifications/resources/updated` to the sessions it holds that subscribed to `restap://news`.
 *
 * 2025-era requests without a session id (clients that skip the header) are served statelessly
 * as before, by the SDK's `legacyStatelessFallback`.
 */
@Injectable()
export class McpLegacySessions implements OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private readonly local = new Map<string, LocalSession>();
  private readonly opening = new Map<string, Promise<LocalSession | undefined>>();
  private stateless?: LegacyHttpHandler;
  private sentinel?: Promise<LocalSession>;
  private sweeper?: NodeJS.Timeout;

  constructor(
    @Inject(RESTAP_OPTIONS) private readonly options: McpDoorOptions,
    private readonly factory: McpServerFactory,
    private readonly store: McpSessionStore,
  ) {}

  private get config(): Required<RestapMcpSessionOptions> {
    return this.options.mcp.sessions as Required<RestapMcpSessionOptions>;
  }

  /** Serves one 2025-era request (as `isLegacyRequest` classifies it). */
  async fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(500, Math.min(SWEEP_MS, this.config.idleMs / 2))).unref();
    const body = options?.parsedBody;
    if (request.method === 'POST' && isInitializeRequest(body)) return this.open(request, options);
    const id = request.headers.get('mcp-session-id');
    if (!id) {
      this.stateless ??= legacyStatelessFallback((ctx) => this.factory.create('legacy', ctx.requestInfo), (error) => this.warn(error), { maxRequestBodySize: this.options.limits.bodyBytes });
      return this.stateless(request, options);
    }
    const level = setLevelOf(body);
    const session = await this.find(id, this.ownerOf(request), level);
    // The SDK's transport answers an unknown session itself (404, "Session not found"): one that
    // knows another id. A session another OAuth subject owns gets the same answer (no hint it exists).
    if (!session) return (await (this.sentinel ??= this.rebuild(randomBytes(24).toString('base64url'), SENTINEL_INIT, false))).transport.handleRequest(request, options);
    session.lastUsed = Date.now();
    if (request.method !== 'GET') return session.transport.handleRequest(request, options);
    this.holdStream(session, request);
    const response = await session.transport.handleRequest(request, options);
    if (response.ok && response.body) this.endWithToken(session, request);
    return response;
  }

  /**
   * Under OAuth, the session's GET stream ends (the SDK's `closeStandaloneSSEStream`, a clean end of
   * the SSE body) when the token that opened it stops being accepted. The client reconnects the
   * stream, as the MCP transport says it may, with its fresh token, which the door verifies and
   * `find()` matches to the same owner.
   */
  private endWithToken(session: LocalSession, request: Request): void {
    const deadline = tokenDeadlineOf(callOfRequest(request)?.caller.auth, this.options.auth.oauth);
    if (deadline === undefined) return;
    // A session has one GET stream at a time: while this request is not aborted, it is that stream.
    endAtTokenExpiry(deadline, request.signal, () => session.transport.closeStandaloneSSEStream());
  }

  /** True while this instance holds a session (only those can have subscribed to the news resource). */
  get holdsSessions(): boolean {
    return this.local.size > 0;
  }

  /** A news item was committed (on any replica): the sessions held here that subscribed hear of it. */
  async newsCommitted(): Promise<void> {
    const held = [...this.local.values()];
    if (!held.length) return;
    let subscribed: Buffer[];
    try {
      subscribed = await this.store.subscribed(held.map((s) => s.hash), NEWS_URI);
    } catch {
      return; // logged by the store; the next item tells them
    }
    const keys = new Set(subscribed.map((hash) => hash.toString('hex')));
    for (const session of held) {
      if (keys.has(session.hash.toString('hex'))) session.server.server.sendResourceUpdated({ uri: NEWS_URI }).catch(() => undefined);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.local.values()];
    this.local.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => undefined)));
    const sentinel = await this.sentinel;
    await sentinel?.server.close().catch(() => undefined);
  }

  /** The handshake: a new session, stored, then the SDK answers `initialize` with its id. */
  private async open(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    const init = (options?.parsedBody as { params?: unknown }).params;
    const id = randomBytes(24).toString('base64url');
    const hash = mcpSessionHash(id);
    const owner = this.ownerOf(request);
    const session = this.build(id, hash, async () => {
      await this.store.create(hash, init, this.config.ttlMs, owner);
      this.keep(session);
    });
    await session.server.connect(session.transport);
    return session.transport.handleRequest(request, options);
  }

  /**
   * The session held here, or rebuilt from storage; undefined when it is gone (ended, expired,
   * never was). `setting`: the level the request sets with `logging/setLevel`, stored for every
   * replica (the SDK's own handler then applies it here); a level set elsewhere is replayed here.
   */
  private async find(id: string, owner: Buffer | null, setting?: string): Promise<LocalSession | undefined> {
    const hash = mcpSessionHash(id);
    const key = hash.toString('hex');
    let foreign = false;
    const stored = await this.store.find(hash, this.config.ttlMs, (stored) => {
      foreign = !sameOwner(stored, owner);
      return !foreign;
    });
    // Someone else's session: unknown to this caller, and left as it is for its owner.
    if (foreign) return undefined;
    const held = this.local.get(key);
    if (!stored) {
      // Ended elsewhere (DELETE on another replica) or expired: let it go here too.
      if (held) this.drop(held);
      return undefined;
    }
    if (setting !== undefined) await this.store.setLevel(hash, setting);
    let session = held;
    if (!session) {
      let pending = this.opening.get(key);
      if (!pending) {
        pending = this.rebuild(id, stored.init, true).finally(() => this.opening.delete(key));
        this.opening.set(key, pending);
      }
      session = await pending;
    }
    if (session && setting !== undefined) session.level = setting;
    else if (session && stored.logLevel && stored.logLevel !== session.level) await this.replayLevel(session, id, stored.init, stored.logLevel);
    return session;
  }

  /**
   * Who the request's session belongs to: with OAuth, the hash of its verified token's issuer,
   * subject and client id (the door checked the token before this runs); without OAuth, nobody.
   */
  private ownerOf(request: Request): Buffer | null {
    if (!this.options.auth.oauth) return null;
    const auth = callOfRequest(request)?.caller.auth;
    // Never without a caller on the door's path; a request without one matches no session.
    return auth ? mcpSessionOwnerHash(auth) : NO_OWNER;
  }

  /** The session's server and transport built again, the client's handshake replayed into them. */
  private async rebuild(id: string, init: unknown, keep: boolean): Promise<LocalSession> {
    const session = this.build(id, mcpSessionHash(id), undefined);
    await session.server.connect(session.transport);
    await (await replay(session, { jsonrpc: '2.0', id: 'restap-replay', method: 'initialize', params: init })).text();
    await (await replay(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(id, init))).text();
    if (keep) this.keep(session);
    return session;
  }

  /** A level set on another replica, given to this one's server through the SDK's own `logging/setLevel` handler. */
  private async replayLevel(session: LocalSession, id: string, init: unknown, level: string): Promise<void> {
    session.level = level;
    await (await replay(session, { jsonrpc: '2.0', id: 'restap-replay-level', method: 'logging/setLevel', params: { level } }, sessionHeaders(id, init))).text();
  }

  private build(id: string, hash: Buffer, initialized: (() => Promise<void>) | undefined): LocalSession {
    const hooks = {
      subscribe: (uri: string) => this.store.subscribe(hash, uri),
      unsubscribe: (uri: string) => this.store.unsubscribe(hash, uri),
    };
    const server = this.factory.create('legacy', undefined, hooks);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      ...(initialized ? { onsessioninitialized: initialized } : {}),
      onsessionclosed: async () => {
        this.drop(session, false);
        await this.store.delete(hash);
      },
      maxRequestBodySize: this.options.limits.bodyBytes,
    });
    transport.onerror = (error) => this.warn(error);
    const session: LocalSession = { hash, server, transport, lastUsed: Date.now(), streams: 0, level: null };
    return session;
  }

  private keep(session: LocalSession): void {
    this.local.set(session.hash.toString('hex'), session);
    if (this.local.size > this.config.maxPerInstance) {
      const idle = [...this.local.values()].filter((s) => s.streams === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idle) this.drop(idle);
    }
  }

  private holdStream(session: LocalSession, request: Request): void {
    session.streams++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      session.streams--;
      session.lastUsed = Date.now();
    };
    if (request.signal.aborted) release();
    else request.signal.addEventListener('abort', release, { once: true });
  }

  /** Lets a session go from this instance (it lives on in storage unless it ended). */
  private drop(session: LocalSession, close = true): void {
    const key = session.hash.toString('hex');
    if (this.local.get(key) === session) this.local.delete(key);
    if (close) void session.server.close().catch(() => undefined);
  }

  /**
   * Lets idle sessions go from memory; a session whose GET stream is open here counts as used (it
   * does not expire while its client listens), and one ended elsewhere (DELETE on another replica)
   * or expired is let go, closing its stream.
   */
  private sweep(): void {
    const cutoff = Date.now() - this.config.idleMs;
    const listening: LocalSession[] = [];
    for (const session of this.local.values()) {
      if (session.streams > 0) listening.push(session);
      else if (session.lastUsed < cutoff) this.drop(session);
    }
    if (!listening.length) return;
    this.store.keepAlive(listening.map((s) => s.hash), this.config.ttlMs).then(
      (alive) => {
        const keys = new Set(alive.map((hash) => hash.toString('hex')));
        for (const session of listening) if (!keys.has(session.hash.toString('hex'))) this.drop(session);
      },
      () => undefined, // logged by the store; the next sweep tries again
    );
  }

  private warn(error: Error): void {
    // The SDK's message may quote what the client sent (header values): one short line.
    this.logger.warn(logLine(`MCP: ${error.name}: ${error.message}`));
  }
}

/** Sends `message` into the session's transport as its client would (the replayed handshake and levels); the answer is read to its end. */
function replay(session: LocalSession, message: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const request = new Request('http://restap.invalid/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(message) });
  return session.transport.handleRequest(request, { parsedBody: message });
}

/** The headers of a request in an open session. */
function sessionHeaders(id: string, init: unknown): Record<string, string> {
  const version = (init as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return { 'mcp-session-id': id, ...(typeof version === 'string' ? { 'mcp-protocol-version': version } : {}) };
}

/** The level a `logging/setLevel` request sets, if the body is one with a valid level (the SDK answers the rest). */
function setLevelOf(body: unknown): string | undefined {
  const message = body as { method?: unknown; params?: { level?: unknown } } | undefined;
  const level = message?.method === 'logging/setLevel' ? message.params?.level : undefined;
  return typeof level === 'string' && LOG_LEVELS.has(level) ? level : undefined;
}

/** The owner of a request that has no verified caller under OAuth: it owns nothing (no stored hash is empty). */
const NO_OWNER = Buffer.alloc(0);

/**
 * A stored session's owner against the request's: equal hashes, or both none (no OAuth). A session
 * opened without OAuth has no owner, so once OAuth is on no token reaches it.
 */
function sameOwner(stored: Buffer | null, owner: Buffer | null): boolean {
  if (stored === null || owner === null) return stored === owner;
  return stored.length > 0 && stored.length === owner.length && timingSafeEqual(stored, owner);
}

/** The handshake of the transport that answers requests for unknown sessions (it never serves one). */
const SENTINEL_INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'restap-unknown-session', version: '0' } };
