import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler, type ToNodeHandlerOptions } from '@modelcontextprotocol/node';
import type { NextFunction, Request, Response } from 'express';
import typeIs from 'type-is';
import { RESTAP_OPTIONS, SESSION_ID_HEADER } from '../restap.constants';
import { ShuttingDownException, UnsupportedMediaTypeException } from '../exceptions';
import { toErrorBody } from '../exceptions/restap-exception.filter';
import { writeJson } from '../http/restap-json.writer';
import type { ResolvedRestapOptions } from '../interfaces/restap-options.interface';
import { RestapDrain } from '../lifecycle/restap-drain.service';
import { callerOf } from '../core/caller';
import { parseSessionId } from '../sessions/session-id';
import { bindCall, type McpCall } from './mcp-call.context';
import { RestapRateLimit } from '../guards/restap-rate-limit';
import { DoorGuards } from '../guards/door-guards';
import { createOriginCheck } from './mcp-origin';
import { applyMcpCors } from './mcp-cors';
import { McpServerFactory } from './mcp-server.factory';
import { McpNewsNotifier } from './mcp-news.notifier';
import { DoorJsonBody } from '../http/door-json.body';

/** The handler the host's guards see on the MCP endpoint (`context.getClass()`). */
class McpEndpoint {
  handle(): void {
    // never called: the SDK's handler answers
  }
}

/**
 * The MCP door: Streamable HTTP on the official SDK's `createMcpHandler` (2026-07-28 clients with
 * `server/discover`, and 2025-era clients with `initialize`, stateless, on the same URL), mounted
 * on the host's HTTP adapter while the application is created, like the RESTAP front door, so
 * our limits apply before any host body parser. On the endpoint, in order: the `Origin` check
 * (403), CORS for the origins it allowed (preflights answered), the shutdown drain (503), the
 * rate limit (429, before the body), the body (JSON, `limits.bodyBytes`, `limits.maxJsonDepth`),
 * the host's guards (401/403), then the SDK. Refusals before the SDK are `{"error","message"}`
 * JSON as on every RESTAP route; what the SDK answers is JSON-RPC.
 */
@Injectable()
export class McpDoor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Restap');
  private readonly json: DoorJsonBody;
  private readonly checkOrigin: ReturnType<typeof createOriginCheck>;
  private handler?: McpHttpHandler;
  private readonly adapter: ToNodeHandlerOptions;

  constructor(
    adapterHost: HttpAdapterHost,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapOptions,
    private readonly factory: McpServerFactory,
    private readonly guards: DoorGuards,
    private readonly drain: RestapDrain,
    private readonly notifier: McpNewsNotifier,
    private readonly rateLimit: RestapRateLimit,
  ) {
    this.json = new DoorJsonBody(options.limits);
    this.checkOrigin = createOriginCheck(options.mcp.allowedOrigins);
    this.adapter = { maxRequestBodySize: options.limits.bodyBytes };
    if (!options.mcp.enabled) return;
    adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.route(req, res, next));
  }

  onApplicationBootstrap(): void {
    if (!this.options.mcp.enabled) return;
    const handler = createMcpHandler(({ era, requestInfo }) => this.factory.create(era, requestInfo), {
      onerror: (error) => this.logger.warn(`MCP: ${error.name}: ${error.message}`),
      maxRequestBodySize: this.options.limits.bodyBytes,
    });
    this.handler = handler;
    this.notifier.attach(handler);
    this.logger.log(`MCP: Streamable HTTP at ${this.options.mcp.path} (protocol 2026-07-28 and 2025-era clients)`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler?.close();
  }

  private route(req: Request, res: Response, next: NextFunction): void {
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const handler = this.handler;
    if (path !== this.options.mcp.path || !handler) return next();
    res.removeHeader('X-Powered-By');
    if (!this.checkOrigin(req, res)) return;
    if (applyMcpCors(req, res)) return;
    if (this.drain.isDraining()) {
      res.setHeader('Connection', 'close');
      return fail(res, new ShuttingDownException());
    }
    // Counted before the body is read, as on /talk and /news: an over-quota client costs no upload.
    this.rateLimit.limit(req, res, 'mcp', () => this.body(req, res, () => {
      this.guards.check(req, res, McpEndpoint).then(
        () => {
          let call: McpCall;
          try {
            call = this.callOf(req);
          } catch (error) {
            return fail(res, error);
          }
          this.serve(handler, call, req, res);
        },
        (error: unknown) => fail(res, error),
      );
    }));
  }

  /**
   * Hands the request to the SDK through its Node adapter, tying the web `Request` the adapter
   * makes to the request's call on the way (the adapter takes any `fetch`), so the handlers find
   * it as `ctx.http.req`. The adapter is two closures: one per request costs less than any
   * request-scoped context.
   */
  private serve(handler: McpHttpHandler, call: McpCall, req: Request, res: Response): void {
    const fetch: McpHttpHandler['fetch'] = (request, options) => {
      bindCall(request, call);
      return handler.fetch(request, options);
    };
    void toNodeHandler({ fetch }, this.adapter)(req, res, req.method === 'POST' ? req.body : undefined);
  }

  /** POST bodies are read here with the module's limits; the SDK judges what the JSON says. */
  private body(req: Request, res: Response, next: () => void): void {
    if (req.method !== 'POST' || !typeIs.hasBody(req)) return next();
    if (!typeIs(req, ['application/json', 'application/*+json'])) {
      return fail(res, new UnsupportedMediaTypeException(`Content-Type ${JSON.stringify(req.headers['content-type'] ?? '')} is not accepted: MCP messages are application/json.`));
    }
    this.json.read(req, res, next, (error) => fail(res, error));
  }

  /** The caller and the news session of the request; a malformed Restap-Session-Id is 400 invalid_session_id, as on /news. */
  private callOf(req: Request): McpCall {
    const header = req.headers[SESSION_ID_HEADER];
    const sessionId = header === undefined ? undefined : parseSessionId(Array.isArray(header) ? header : header.trim());
    return sessionId === undefined ? { caller: callerOf(req) } : { caller: callerOf(req), sessionId };
  }
}

function fail(res: Response, error: unknown): void {
  const { status, body, headers } = toErrorBody(error);
  if (res.headersSent) {
    if (!res.writableEnded) res.end();
    return;
  }
  writeJson(res, status, JSON.stringify(body), headers);
}
