import type { McpDoorOptions } from './mcp.options';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createMcpHandler, isLegacyRequest, PARSE_ERROR, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler, type ToNodeHandlerOptions } from '@modelcontextprotocol/node';
import type { NextFunction, Request, Response } from 'express';
import { RESTAP_OPTIONS, SESSION_ID_HEADER } from '../../restap.constants';
import { InvalidJsonException, InvalidRequestException, MethodNotAllowedException } from '../../exceptions';
import { callerOf } from '../../core/caller';
import { parseSessionId } from '../../sessions/session-id';
import { runInDoor } from '../../core/telemetry/door-span.telemetry';
import { bindCall, type McpCall } from './mcp-call.context';
import { DoorKit } from '../kit/door-kit';
import { DoorPipeline, doorPathOf } from '../kit/door-pipeline';
import { createOriginCheck } from './mcp-origin';
import { applyMcpCors } from './mcp-cors';
import { McpServerFactory } from './mcp-server.factory';
import { loadTasksExtension } from './mcp-tasks.extension';
import { McpNewsNotifier } from './mcp-news.notifier';
import { McpLegacySessions } from './mcp-legacy.sessions';
import { writeDoorError as fail } from '../kit/http/door-error.writer';
import { isValidHost } from '../kit/http/host-header';
import { logLine } from '../kit/http/log-line';
import { mcpDoorSpan } from './mcp-door.span';
import { endAtTokenExpiry, tokenDeadlineOf } from '../kit/auth/token-expiry';

/** The handler the host's guards see on the MCP endpoint (`context.getClass()`). */
class McpEndpoint {
  handle(): void {
    // never called: the SDK's handler answers
  }
}

/** The methods of Streamable HTTP (OPTIONS: CORS preflights). */
const MCP_METHODS = ['GET', 'POST', 'DELETE'];

/**
 * The MCP door: Streamable HTTP on the official SDK's `createMcpHandler` (2026-07-28 clients with
 * `server/discover`, and 2025-era clients with `initialize`, stateless, on the same URL).
 *
 * It sits on the host's HTTP adapter in two places, as /talk does: while the application is
 * created, ahead of the host's middleware and body parsers, the checks that must come before a
 * body is read — the method (405) and `Host` (400) the SDK would fail on, the `Origin` check (403),
 * CORS for the origins it allowed (preflights answered), the shutdown drain (503), the rate limit
 * (429), the body (415 unless JSON, `limits.bodyBytes`, `limits.maxJsonDepth`); then, once Nest has
 * registered the host's middleware and routes (`onModuleInit`), the endpoint itself: the host's
 * guards (401/403), the open-stream caps for `subscriptions/listen` and GET streams (429), then
 * the SDK. So the host's own middleware (`app.use()` in main.ts, `MiddlewareConsumer`) runs
 * between the two, exactly as it does before a controller route. Refusals before the SDK are
 * `{"error","message"}` JSON as on every RESTAP route; what the SDK answers is JSON-RPC.
 */
@Injectable()
export class McpDoor implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  /** The checks before the host's middleware: nothing of the body is read unless they pass. */
  private readonly admission: DoorPipeline;
  /** The endpoint's checks after the host's middleware: its guards, the stream caps. */
  private readonly endpoint: DoorPipeline;
  private handler?: McpHttpHandler;
  /** What serves a request: the SDK's handler, or with `mcp.sessions` the era routing in front of it. */
  private fetch?: McpHttpHandler['fetch'];
  private readonly adapter: ToNodeHandlerOptions;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(RESTAP_OPTIONS) private readonly options: McpDoorOptions,
    private readonly factory: McpServerFactory,
    private readonly notifier: McpNewsNotifier,
    private readonly sessions: McpLegacySessions,
    kit: DoorKit,
  ) {
    const checkOrigin = createOriginCheck(options.mcp.allowedOrigins);
    this.admission = new DoorPipeline([
      (req, res, next) => {
        if (MCP_METHODS.includes(req.method) || req.method === 'OPTIONS') return next();
        fail(res, new MethodNotAllowedException(MCP_METHODS, `${req.method} is not allowed here: the MCP endpoint takes ${MCP_METHODS.join(', ')}.`));
      },
      (req, res, next) => (isValidHost(req.headers.host) ? next() : fail(res, new InvalidRequestException('The Host header is not a valid host[:port].'))),
      (req, res, next) => (checkOrigin(req, res) ? next() : undefined),
      (req, res, next) => (applyMcpCors(req, res) ? undefined : next()),
      (req, res, next) => (req.method === 'OPTIONS' ? fail(res, new MethodNotAllowedException(MCP_METHODS)) : next()),
      kit.refuseWhileDraining(),
      // Counted before the body is read, as on /talk and /news: an over-quota client costs no upload.
      kit.rateLimit('mcp'),
      // OAuth (auth.oauth): 401 naming the protected resource metadata before the body is read.
      kit.bearerAuth(),
      // A body must say it is JSON: a browser page elsewhere can send `text/plain` without asking
      // (no CORS preflight), so anything else is 415 before it is read. The SDK judges what the JSON says.
      // Malformed JSON is the JSON-RPC parse error the SDK's transport gives when it reads the body itself (issue 38).
      kit.jsonBody('MCP messages are application/json.', (req) => req.method === 'POST', (res, error) =>
        error instanceof InvalidJsonException ? void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: Invalid JSON' } }) : fail(res, error)),
    ]);
    this.endpoint = new DoorPipeline([kit.hostGuards(McpEndpoint), kit.streamSlot((req) => req.method === 'GET' || listens(req.body))]);
    this.adapter = { maxRequestBodySize: options.limits.bodyBytes };
    if (!options.mcp.enabled) return;
    kit.admitBeforeHost(adapterHost.httpAdapter, (req, res, next) => this.admit(req, res, next));
  }

  /** After Nest registered the host's middleware and routes: the endpoint, behind them. */
  onModuleInit(): void {
    if (!this.options.mcp.enabled) return;
    this.adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.serveEndpoint(req, res, next));
  }

  onApplicationBootstrap(): void {
    if (!this.options.mcp.enabled) return;
    const stateful = this.options.mcp.sessions !== false;
    const handler = createMcpHandler(
      ({ era, requestInfo }) =>
        // A 2026-07-28 client reaches task tools through the Tasks extension, loaded on the first such request.
        era === 'modern' && this.factory.servesTaskTools(requestInfo)
          ? loadTasksExtension().then((tasks) => this.factory.create(era, requestInfo, undefined, tasks))
          : this.factory.create(era, requestInfo),
      {
        // The SDK's message may quote what the client sent (header values): one short line.
        onerror: (error) => this.logger.warn(logLine(`MCP: ${error.name}: ${error.message}`)),
        maxRequestBodySize: this.options.limits.bodyBytes,
        // With sessions, 2025-era traffic is routed before the handler (the SDK's documented pattern).
        ...(stateful ? { legacy: 'reject' as const } : {}),
      },
    );
    this.handler = handler;
    const maxRequestBodySize = this.options.limits.bodyBytes;
    this.fetch = stateful
      ? async (request, options) => ((await isLegacyRequest(request, options?.parsedBody, { maxRequestBodySize })) ? this.sessions.fetch(request, options) : handler.fetch(request, options))
      : handler.fetch;
    this.notifier.attach(handler, stateful ? this.sessions : undefined);
    this.logger.log(`MCP: Streamable HTTP at ${this.options.mcp.path} (protocol 2026-07-28 and 2025-era clients${stateful ? ', sessions for 2025-era clients' : ''})`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler?.close();
  }

  private isEndpoint(req: Request): boolean {
    return this.handler !== undefined && doorPathOf(req) === this.options.mcp.path;
  }

  /** The checks before the host's middleware: nothing of the body is read unless they pass. */
  private admit(req: Request, res: Response, next: NextFunction): boolean {
    if (!this.isEndpoint(req)) return false;
    res.removeHeader('X-Powered-By');
    this.admission.run(req, res, undefined, next);
    return true;
  }

  /**
   * The endpoint, after the host's middleware: its guards, the stream caps, then the SDK, all in
   * the request's server span (see mcpDoorSpan).
   */
  private serveEndpoint(req: Request, res: Response, next: NextFunction): void {
    if (!this.isEndpoint(req)) return next();
    runInDoor(mcpDoorSpan(req, res, this.options.mcp.path), () => this.guardAndServe(req, res));
  }

  private guardAndServe(req: Request, res: Response): void {
    const handler = this.handler as McpHttpHandler;
    this.endpoint.run(req, res, undefined, () => {
      let call: McpCall;
      try {
        call = this.callOf(req);
      } catch (error) {
        return fail(res, error);
      }
      this.serve(handler, call, req, res);
    });
  }

  /**
   * Hands the request to the SDK through its Node adapter, tying the web `Request` the adapter
   * makes to the request's call on the way (the adapter takes any `fetch`), so the handlers find
   * it as `ctx.http.req`. The adapter is two closures: one per request costs less than any
   * request-scoped context.
   */
  private serve(handler: McpHttpHandler, call: McpCall, req: Request, res: Response): void {
    const serve = this.fetch ?? handler.fetch;
    const fetch: McpHttpHandler['fetch'] = (request, options) => {
      bindCall(request, call);
      return serve(request, options);
    };
    if (req.method === 'GET') flushHeadOnWrite(res);
    else if (call.method === 'subscriptions/listen') this.endListenWithToken(call, res);
    void toNodeHandler({ fetch }, this.adapter)(req, res, req.method === 'POST' ? req.body : undefined);
  }

  /**
   * Under OAuth, a `subscriptions/listen` stream ends when its request's token stops being accepted
   * (the stateful GET streams end in McpLegacySessions): the response is ended, which aborts the
   * SDK's listen through its request's signal. The client listens again with a fresh token.
   */
  private endListenWithToken(call: McpCall, res: Response): void {
    const deadline = tokenDeadlineOf(call.caller.auth, this.options.auth.oauth);
    if (deadline === undefined) return;
    const closed = new AbortController();
    res.once('close', () => closed.abort());
    endAtTokenExpiry(deadline, closed.signal, () => {
      if (res.writableEnded) return;
      // Until the adapter sees the close, a notification may still be written: it is dropped, not thrown.
      res.on('error', () => undefined);
      res.end();
    });
  }

  /** The caller and the news session of the request; a malformed Restap-Session-Id is 400 invalid_session_id, as on /news. */
  private callOf(req: Request): McpCall {
    const header = req.headers[SESSION_ID_HEADER];
    const sessionId = header === undefined ? undefined : parseSessionId(Array.isArray(header) ? header : header.trim());
    const call: McpCall = sessionId === undefined ? { caller: callerOf(req) } : { caller: callerOf(req), sessionId };
    const body = req.body as { method?: unknown; params?: { task?: unknown } } | undefined;
    if (typeof body?.method === 'string') call.method = body.method;
    const task = body?.method === 'tools/call' ? body.params?.task : undefined;
    if (task && typeof task === 'object' && !Array.isArray(task)) call.task = task as Record<string, unknown>;
    return call;
  }
}

/**
 * A session's GET stream may stay silent until its first notification (or keep-alive, 15 s): its
 * head is sent as soon as the SDK's adapter writes it, so the client knows at once the stream is open.
 */
function flushHeadOnWrite(res: Response): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  res.writeHead = ((...args: unknown[]) => {
    const out = writeHead(...args);
    res.flushHeaders();
    return out;
  }) as Response['writeHead'];
}

/** True for a `subscriptions/listen` request: its answer is a stream that stays open. */
function listens(body: unknown): boolean {
  return (body as { method?: unknown } | undefined)?.method === 'subscriptions/listen';
}
