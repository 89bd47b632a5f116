import type { A2aDoorOptions } from './a2a.options';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AGENT_CARD_PATH, AgentCard } from '@a2a-js/sdk';
import type * as A2aExpress from '@a2a-js/sdk/server/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RESTAP_OPTIONS, SESSION_ID_PATTERN } from '../../restap.constants';
import { mintSessionId } from '../../sessions/session-id';
import { RestapRegistry } from '../../core/registry/restap.registry';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { InvalidJsonException, InvalidRequestException, MethodNotAllowedException, UnsupportedMediaTypeException, type RestapException } from '../../exceptions';
import { RestapReplicas } from '../../core/lifecycle/restap-replicas.service';
import { A2aCaller } from './a2a-caller';
import { callerOf } from '../../core/caller';
import { OAUTH_RESOURCE, type AuthorizationServerInfo, type OAuthGate } from '../kit/auth/oauth-gate';
import { DoorKit } from '../kit/door-kit';
import { DoorPipeline, doorPathOf } from '../kit/door-pipeline';
import { A2aTaskStore } from './a2a-task.store';
import { ReplicaAwareRequestHandler } from './replica-aware.handler';
import { A2aRequestCheck } from './a2a-request.check';
import { A2aAgentExecutor } from './a2a-agent.executor';
import { RemoteCancels } from './remote-cancels';
import { A2aTaskWakeups } from './a2a-task.wakeups';
import { buildAgentCard, cardFor, extendedCardFor } from './agent-card.factory';
import { anonymousCardRefusal, isCardMethod, isCardRoute } from './extended-card.gate';
import { a2aCallerOf } from './a2a-task.store';
import { answerCardPreflight, prepareCardResponse } from './agent-card.http';
import { A2aPushStore } from './a2a-push.store';
import { createPushSender } from './a2a-push.sender';
import { restMethodOf, type RestCall } from './a2a-rest.routes';
import { answerRestMediaType } from './a2a-rest.media-type';
import { A2A_ERROR_CODE, ContentTypeNotSupportedError, JsonRpcRequestMalformedError, RequestMalformedError, toJsonRpcError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { writeDoorError as fail } from '../kit/http/door-error.writer';
import { isValidHost } from '../kit/http/host-header';
import { StreamListenerBusManager } from './stream-listener.bus';
import { runInDoor } from '../../core/telemetry/door-span.telemetry';
import { a2aDoorSpan } from './a2a-door.span';

const CARD_PATH = `/${AGENT_CARD_PATH}`;
/** Card handlers kept per origin (Host header): past this, cards are built per request. */
const MAX_ORIGINS = 16;

/** The handler the host's guards see on the A2A endpoint (`context.getClass()`). */
class A2aEndpoint {
  handle(): void {
    // never called: the SDK's handler answers
  }
}

/**
 * The A2A door on the host's Express app, with the official SDK doing the protocol: the agent card
 * (`agentCardHandler`, public like the RESTAP catalog) and the JSON-RPC endpoint (`jsonRpcHandler`
 * over a `DefaultRequestHandler`, 1.0 and 0.3 clients).
 *
 * It sits on the host's HTTP adapter in two places, as /talk does: while the application is
 * created, ahead of the host's middleware and body parsers, the card, and on the endpoint the
 * checks that must come before a body is read — the method (405), the shutdown drain (503), the
 * rate limit (its own count, `a2a`), the body (415 unless JSON or an A2A JSON type,
 * `limits.bodyBytes`, `limits.maxJsonDepth`); then, once Nest has registered the host's middleware
 * and routes (`onModuleInit`), the endpoint itself: the host's guards, the open-stream caps for
 * streaming calls (429), then the SDK. So the host's own middleware (`app.use()` in main.ts,
 * `MiddlewareConsumer`) runs between the two, exactly as it does before a controller route.
 * Refusals before the SDK are `{"error","message"}` JSON like every RESTAP route; what the SDK
 * answers is JSON-RPC.
 */
@Injectable()
export class A2aDoor implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('Restap');
  /** The endpoint's checks before the host's middleware: nothing of the body is read unless they pass. */
  private readonly admission: DoorPipeline;
  /** The endpoint's checks after the host's middleware: its guards, the stream caps. */
  private readonly endpoint: DoorPipeline;
  /** The HTTP+JSON binding's checks before the host's middleware, answered in that binding's error shape. */
  private readonly restAdmission: DoorPipeline;
  /** The HTTP+JSON binding's checks after the host's middleware: guards, A2aRequestCheck's parameter checks, stream caps. */
  private readonly restEndpoint: DoorPipeline;
  private card?: AgentCard;
  /** When the card was built (its Last-Modified), to the second as HTTP dates go. */
  private readonly cardBuiltAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  private rpc?: RequestHandler;
  private rest?: RequestHandler;
  private check?: A2aRequestCheck;
  private readonly cards = new Map<string, RequestHandler>();

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(RESTAP_OPTIONS) private readonly options: A2aDoorOptions,
    private readonly registry: RestapRegistry,
    private readonly tasks: A2aTaskStore,
    private readonly executor: A2aAgentExecutor,
    private readonly remote: RemoteCancels,
    private readonly replicas: RestapReplicas,
    private readonly pushStore: A2aPushStore,
    private readonly wakeups: A2aTaskWakeups,
    kit: DoorKit,
    @Optional() @Inject(OAUTH_RESOURCE) private readonly oauth: OAuthGate | null = null,
  ) {
    this.admission = new DoorPipeline([
      (req, res, next) => (req.method === 'POST' ? next() : fail(res, new MethodNotAllowedException(['POST'], `${req.method} is not allowed here: the A2A JSON-RPC endpoint takes POST.`))),
      kit.refuseWhileDraining(),
      kit.rateLimit('a2a'),
      // OAuth (auth.oauth): 401 naming the protected resource metadata before the body is read.
      kit.bearerAuth(),
      // A body must say it is JSON (`application/json`, or A2A's `application/a2a+json`): a browser
      // page elsewhere can send `text/plain` or no type at all without asking (no CORS preflight),
      // so anything else is 415 before it is read — no capability runs for a cross-site form.
      // Malformed JSON is JSON-RPC's -32700, a non-JSON body HTTP 415 with -32005 as its body (issue 38).
      kit.jsonBody('A2A messages are application/json (or application/a2a+json).', undefined, (res, error) => refuseBody(res, error, false)),
    ]);
    this.endpoint = new DoorPipeline([
      kit.hostGuards(A2aEndpoint),
      (req, res, next) => this.refuseAnonymousCard(req, res, next, isCardMethod(req.body)),
      kit.streamSlot((req) => streams(req.body)),
    ]);
    this.restAdmission = new DoorPipeline([
      (req, res, next) => (REST_METHODS.includes(req.method) ? next() : fail(res, new MethodNotAllowedException(REST_METHODS, `${req.method} is not allowed here: the A2A HTTP+JSON binding takes ${REST_METHODS.join(', ')}.`))),
      kit.refuseWhileDraining(),
      kit.rateLimit('a2a'),
      // OAuth (auth.oauth), as on the JSON-RPC binding: one door, one sign-in.
      kit.bearerAuth(),
      kit.jsonBody('A2A messages are application/json (or application/a2a+json).', undefined, (res, error) => refuseBody(res, error, true)),
    ]);
    this.restEndpoint = new DoorPipeline([
      kit.hostGuards(A2aEndpoint),
      (req, res, next) => this.refuseAnonymousCard(req, res, next, req.method === 'GET' && isCardRoute(doorPathOf(req).slice((this.options.a2a.restPath as string).length))),
      (req, res, next) => this.checkRest(req, res, next),
      kit.streamSlot((req) => REST_CALLS.get(req)?.streams === true),
    ]);
    if (!options.a2a.enabled) return;
    kit.admitBeforeHost(adapterHost.httpAdapter, (req, res, next) => this.admit(req, res, next));
  }

  /** After Nest registered the host's middleware and routes: the endpoint, behind them. */
  onModuleInit(): void {
    if (!this.options.a2a.enabled) return;
    this.adapterHost.httpAdapter?.use((req: Request, res: Response, next: NextFunction) => this.serveEndpoint(req, res, next));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.a2a.enabled) return;
    const talk = this.options.talk.enabled && this.registry.getTalkHandler() !== undefined;
    const { restPath, pushNotifications: push } = this.options.a2a;
    const oauthServer = await this.oauthServer();
    this.card = buildAgentCard({ options: this.options, capabilities: this.registry.getCapabilities(), talk, ...(oauthServer ? { oauthServer } : {}) });
    // The request handler checks versions and streaming against the card; its URLs are not used.
    const handler = new ReplicaAwareRequestHandler(
      cardFor(this.card, this.options.a2a.baseUrl ?? 'http://localhost', this.options.a2a.path, restPath),
      this.tasks,
      this.executor,
      // One scope for every caller: the task store decides who may see a task, before any bus is used.
      // Listeners: one per open stream (capped by talk.maxStreams), plus a few of the SDK's own.
      new StreamListenerBusManager(this.options.talk.maxStreams + 10),
      // A runner is alive while its heartbeat is (RestapReplicas); a dead one's tasks are failed by the sweep.
      this.replicas,
      this.remote,
      this.wakeups,
      push ? { store: this.pushStore, sender: createPushSender(this.pushStore, push) } : undefined,
      // GetExtendedAgentCard (issue 38, item 4): the skills this caller may use; the door lets only an authenticated caller ask.
      (context) => this.extendedCard(context),
    );
    const sdk = sdkExpress();
    this.check = new A2aRequestCheck(this.card, this.options.a2a.path, this.options.a2a);
    this.rpc = this.check.guard(sdk.jsonRpcHandler({
      requestHandler: handler,
      userBuilder: async (req) => this.userOf(req),
      legacyCompat: { enabled: true },
    }));
    if (restPath !== false) {
      this.rest = sdk.restHandler({ requestHandler: handler, userBuilder: async (req) => this.userOf(req), legacyCompat: { enabled: true } });
    }
    this.logger.log(`A2A: agent card at ${CARD_PATH}, JSON-RPC at ${this.options.a2a.path}${restPath === false ? '' : `, HTTP+JSON at ${restPath}`}${push ? ', push notifications on' : ''}`);
    if (this.options.a2a.baseUrl === undefined && process.env.NODE_ENV === 'production') {
      this.logger.warn('A2A: a2a.baseUrl is not set, so the card\'s URLs come from each request\'s Host header: set it to the public URL clients reach the agent by.');
    }
  }

  /**
   * The authenticated extended card (issue 38, item 4) for the request's caller, at the request's
   * origin: the public card with only the skills the caller may use (with OAuth, by its token's
   * scopes). Only an authenticated caller reaches it (see anonymousCardRefusal).
   */
  private async extendedCard(context: ServerCallContext): Promise<AgentCard> {
    const caller = a2aCallerOf(context);
    const card = this.card as AgentCard;
    const origin = ORIGINS.get(caller) ?? this.options.a2a.baseUrl ?? 'http://localhost';
    return cardFor(extendedCardFor(card, this.registry.getCapabilities(), caller.caller, this.options), origin, this.options.a2a.path, this.options.a2a.restPath);
  }

  /** GetExtendedAgentCard needs an authenticated caller (see anonymousCardRefusal); a card without `extendedAgentCard` is left to the SDK. */
  private refuseAnonymousCard(req: Request, res: Response, next: () => void, asksCard: boolean): void {
    const refusal = asksCard && this.card?.capabilities?.extendedAgentCard ? anonymousCardRefusal(callerOf(req), this.options.a2a) : undefined;
    return refusal ? fail(res, refusal) : next();
  }

  /** With `auth.oauth`: the authorization server's endpoints, for the card's oauth2 scheme (a failure is logged, not fatal). */
  private async oauthServer(): Promise<AuthorizationServerInfo | undefined> {
    if (!this.oauth) return undefined;
    try {
      return await this.oauth.serverMetadata();
    } catch (error) {
      this.logger.warn(`A2A: the authorization server's metadata could not be read (${(error as Error).message}); the card names its OpenID discovery instead.`);
      return undefined;
    }
  }

  private isEndpoint(req: Request): boolean {
    return this.rpc !== undefined && doorPathOf(req) === this.options.a2a.path;
  }

  /** True for a path of the HTTP+JSON binding (its base path and below). */
  private isRest(path: string): boolean {
    const { restPath } = this.options.a2a;
    return restPath !== false && this.rest !== undefined && (path === restPath || path.startsWith(`${restPath}/`));
  }

  /** The card, and the endpoint's checks before the host's middleware (no body is read unless they pass). */
  private admit(req: Request, res: Response, next: NextFunction): boolean {
    const path = doorPathOf(req);
    if ((path === CARD_PATH || path === `${this.options.a2a.path}${CARD_PATH}`) && this.card) {
      if (req.method === 'OPTIONS') {
        answerCardPreflight(req, res);
        return true;
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        const handler = this.cardHandler(req, res);
        if (!handler) return true;
        prepareCardResponse(req, res, this.cardBuiltAt);
        mounted(handler, req, res, next);
        return true;
      }
    }
    if (this.isRest(path)) {
      this.restAdmission.run(req, res, undefined, next);
      return true;
    }
    if (path !== this.options.a2a.path || !this.rpc) return false;
    this.admission.run(req, res, undefined, next);
    return true;
  }

  /** The endpoint, after the host's middleware: its guards, the stream caps, then the SDK, in the request's server span (a2aDoorSpan). */
  private serveEndpoint(req: Request, res: Response, next: NextFunction): void {
    const path = doorPathOf(req);
    if (this.isRest(path)) {
      const restPath = this.options.a2a.restPath as string;
      const subPath = path.slice(restPath.length) || '/';
      const rest = this.rest as RequestHandler;
      // The HTTP+JSON binding's server span is named after the HTTP method and the binding's base path.
      // application/json unless the client asks for application/a2a+json (A2A 1.0 §11.1; see answerRestMediaType).
      answerRestMediaType(req.headers.accept, res);
      return runInDoor(a2aDoorSpan(req, res, restPath), () =>
        this.restEndpoint.run(req, res, undefined, () => mountedAt(rest, subPath, req, res, (error?: unknown) => (error ? fail(res, error) : next()))),
      );
    }
    if (!this.isEndpoint(req)) return next();
    runInDoor(a2aDoorSpan(req, res, this.options.a2a.path), () => this.guardAndServe(req, res, next));
  }

  private guardAndServe(req: Request, res: Response, next: NextFunction): void {
    const rpc = this.rpc as RequestHandler;
    this.endpoint.run(req, res, undefined, () => mounted(rpc, req, res, (error?: unknown) => (error ? fail(res, error) : next())));
  }

  /**
   * A request of the HTTP+JSON binding (1.0) seen as the JSON-RPC call it stands for: the checks
   * A2aRequestCheck makes on JSON-RPC, refused in the binding's own error shape (400 + AIP-193
   * body); the call is kept for the stream caps and the request's A2aCaller (see userOf).
   */
  private checkRest(req: Request, res: Response, next: () => void): void {
    const subPath = doorPathOf(req).slice((this.options.a2a.restPath as string).length) || '/';
    const call = req.headers['a2a-version'] === '1.0' ? restMethodOf(req.method, subPath, req.body, req.query) : undefined;
    if (call) {
      const problem = this.check?.paramsProblem(call.method, call.params);
      if (problem !== undefined) return void res.status(400).json(toRestErrorBody(new RequestMalformedError(problem), 400));
      REST_CALLS.set(req, call);
    }
    next();
  }

  /**
   * The SDK's card handler for the request's origin (1.0 card, or the 0.3 card to 0.3 clients).
   * Without `a2a.baseUrl` the origin is the request's own scheme and `Host`, which must be a
   * well-formed host[:port]: anything else (`user@evil.example`, markup) is refused with 400 and
   * never written into a card that caches may keep. Undefined when it answered so.
   */
  private cardHandler(req: Request, res: Response): RequestHandler | undefined {
    const { baseUrl } = this.options.a2a;
    if (baseUrl === undefined && !isValidHost(req.headers.host)) {
      fail(res, new InvalidRequestException('The Host header is not a valid host[:port].'));
      return undefined;
    }
    const origin = baseUrl ?? `${req.protocol}://${req.headers.host as string}`;
    let handler = this.cards.get(origin);
    if (!handler) {
      const card = servedCard(cardFor(this.card as AgentCard, origin, this.options.a2a.path, this.options.a2a.restPath));
      handler = sdkExpress().agentCardHandler({ agentCardProvider: async () => card, legacyCompat: { enabled: true }, cache: { maxAge: maxAgeOf(this.options.catalogCacheControl) } });
      if (this.cards.size < MAX_ORIGINS) this.cards.set(origin, handler);
    }
    return handler;
  }

  /** The SDK's `User` for a request: its identity (hashed in storage), headers, and the context it names. */
  private userOf(req: Request): A2aCaller {
    const caller = callerOf(req);
    // An HTTP+JSON request is read as the JSON-RPC call it stands for (see checkRest).
    const rest = REST_CALLS.get(req);
    const body: unknown = rest ? { method: rest.method, params: rest.params } : req.body;
    const minted = newContextIdOf(body);
    const user = new A2aCaller(caller, this.options.a2a.identify(caller), minted ?? contextHintOf(body), minted);
    // The extended card's URLs are those of the origin it was asked at, as the public card's are.
    const { baseUrl } = this.options.a2a;
    if (baseUrl !== undefined || isValidHost(req.headers.host)) ORIGINS.set(user, baseUrl ?? `${req.protocol}://${req.headers.host as string}`);
    return user;
  }
}

/**
 * The card object handed to the SDK's card handler. The handler writes a 1.0 card with
 * `JSON.stringify`, which would print the SDK's in-memory oneofs (`{ scheme: { $case, value } }`)
 * instead of A2A JSON; a `toJSON` on the prototype makes it `AgentCard.toJSON`, while the 0.3
 * translation still reads the plain fields.
 */
function servedCard(card: AgentCard): AgentCard {
  const proto = { toJSON(this: AgentCard) { return AgentCard.toJSON(this); } };
  return Object.assign(Object.create(proto) as AgentCard, card);
}

/**
 * The SDK's Express handlers, loaded when the door is enabled: that module requires `express`
 * itself (an optional peer of the SDK), which a host without the A2A door need not resolve from there.
 */
function sdkExpress(): typeof A2aExpress {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, on purpose
  return require('@a2a-js/sdk/server/express') as typeof A2aExpress;
}

/** Runs one of the SDK's routers (which serve their own root) on the request, as if mounted at its path. */
function mounted(handler: RequestHandler, req: Request, res: Response, next: (error?: unknown) => void): void {
  const url = req.url;
  const query = url.indexOf('?');
  req.url = query === -1 ? '/' : `/${url.slice(query)}`;
  void handler(req, res, (error?: unknown) => {
    req.url = url;
    next(error);
  });
}

/**
 * A body the door refuses, answered in the binding's own terms where A2A has them (the SDK's own
 * errors, which it cannot give here since the door reads the body): malformed JSON is JSON-RPC's
 * -32700 with a null id (HTTP 200), or the HTTP+JSON binding's 400; a body that is not JSON is
 * HTTP 415 still (a form or no-cors fetch is refused at the HTTP level) with ContentTypeNotSupported
 * (-32005) as its JSON-RPC body, or the binding's 415 body. Anything else: the module's JSON error.
 */
function refuseBody(res: Response, error: RestapException, rest: boolean): void {
  if (error instanceof InvalidJsonException) {
    if (rest) return void res.status(400).json(toRestErrorBody(new RequestMalformedError('Invalid JSON payload.'), 400));
    return void res.status(200).json({ jsonrpc: '2.0', id: null, error: toJsonRpcError(new JsonRpcRequestMalformedError({ message: 'Invalid JSON payload.', envelopeCode: A2A_ERROR_CODE.PARSE_ERROR })) });
  }
  if (error instanceof UnsupportedMediaTypeException) {
    const notSupported = new ContentTypeNotSupportedError(error.message);
    if (rest) return void res.status(415).json(toRestErrorBody(notSupported, 415));
    return void res.status(415).json({ jsonrpc: '2.0', id: null, error: toJsonRpcError(notSupported) });
  }
  fail(res, error);
}

/** Runs the SDK's HTTP+JSON router on the request as if mounted at `a2a.restPath` (`subPath` is the rest of the path). */
function mountedAt(handler: RequestHandler, subPath: string, req: Request, res: Response, next: (error?: unknown) => void): void {
  const url = req.url;
  const query = url.indexOf('?');
  req.url = query === -1 ? subPath : `${subPath}${url.slice(query)}`;
  void handler(req, res, (error?: unknown) => {
    req.url = url;
    next(error);
  });
}

/** The origin each request's caller asked at (see userOf), for the extended card's URLs. */
const ORIGINS = new WeakMap<A2aCaller, string>();

/** The HTTP methods of the HTTP+JSON binding. */
const REST_METHODS = ['GET', 'POST', 'DELETE'];

/** The 1.0 method a request of the HTTP+JSON binding stands for, with its parameters (see checkRest). */
const REST_CALLS = new WeakMap<Request, RestCall>();

const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/** Methods whose answer is a stream that stays open while the task runs (1.0 and 0.3 names). */
const STREAM_METHODS = new Set(['SendStreamingMessage', 'SubscribeToTask', 'message/stream', 'tasks/resubscribe']);

/** True for a JSON-RPC call whose answer is an open stream (it takes one of the door streams' slots). */
function streams(body: unknown): boolean {
  const method = (body as { method?: unknown } | undefined)?.method;
  return typeof method === 'string' && STREAM_METHODS.has(method);
}

/**
 * A message that starts a conversation (no contextId, no taskId) gets a session id minted by the
 * session rules as its contextId, where the SDK would draw a UUID: the context is the session. The
 * id travels with the request's A2aCaller; ReplicaAwareRequestHandler gives it to the message.
 * Undefined for any other request.
 */
function newContextIdOf(body: unknown): string | undefined {
  const rpc = body as { method?: unknown; params?: { message?: { contextId?: unknown; taskId?: unknown } } } | undefined;
  const message = rpc?.params?.message;
  if (typeof rpc?.method !== 'string' || !SEND_METHODS.has(rpc.method) || !message || typeof message !== 'object') return undefined;
  return message.contextId || message.taskId ? undefined : mintSessionId();
}

/** A context id the request names (SendMessage's message.contextId, ListTasks' contextId). */
function contextHintOf(body: unknown): string | undefined {
  const params = (body as { params?: { contextId?: unknown; message?: { contextId?: unknown } } } | undefined)?.params;
  const id = params?.message?.contextId ?? params?.contextId;
  return typeof id === 'string' && SESSION_ID_PATTERN.test(id) ? id : undefined;
}

function maxAgeOf(cacheControl: string): number {
  const match = /max-age=(\d+)/.exec(cacheControl);
  return match ? Number(match[1]) : 60;
}
