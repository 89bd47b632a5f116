import { Injectable, Logger, type Type } from '@nestjs/common';
import { ContextIdFactory, ExternalContextCreator, ModuleRef } from '@nestjs/core';
import {
  GuardsConsumer,
  GuardsContextCreator,
  InterceptorsConsumer,
  InterceptorsContextCreator,
  PipesConsumer,
  PipesContextCreator,
  STATIC_CONTEXT,
} from '@nestjs/core/internal';
import type { NestContainer } from '@nestjs/core/injector/container.js';
import { RouteParamsFactory } from '@nestjs/core/router/route-params-factory.js';
import { RouterExceptionFilters } from '@nestjs/core/router/router-exception-filters.js';
import { RouterExecutionContext } from '@nestjs/core/router/router-execution-context.js';
import { RouterProxy } from '@nestjs/core/router/router-proxy.js';
import { RestapRegistry, type RegisteredCapability } from '../registry/restap.registry';
import type { RestapCaller } from '../caller';
import type { CapabilityCallEvents } from './capability-events';
import { failure, toInvocationFailure } from './invocation-error';
import type { InvocationResult } from './invocation-result';
import { toSyntheticRequest } from './invocation-request';
import { SyntheticRequest, SyntheticResponse } from './synthetic-http';

type RouteHandler = (req: unknown, res: unknown, next: (error?: unknown) => void) => Promise<unknown>;

/** The handler Nest would register for a route, built from the same parts as Nest's RouterExplorer. */
interface RouteBuilder {
  build(instance: object, capability: RegisteredCapability, contextId: typeof STATIC_CONTEXT, inquirerId: string): RouteHandler;
}

/**
 * Calls a `@Capability()` method in-process through the pipeline an HTTP request to its route
 * takes: the host's global, controller and method guards (they see the caller's headers),
 * pipes (global ValidationPipe, param pipes), interceptors and exception filters, then `@HttpCode`
 * or the method's default status, exactly as Nest's router builds it (RouterExecutionContext +
 * RouterExceptionFilters + RouterProxy). The handler reads and writes a synthetic Express
 * request/response pair instead of a socket, so what a filter or the response controller writes is
 * what the invoker returns. Middleware does not run: the call targets the route, not a URL.
 *
 * @example
 * const result = await invoker.invoke('text.reverse', { text: 'hello' }, callerOf(req));
 * if (result.ok) console.log(result.body); else console.log(result.error, result.message);
 */
@Injectable()
export class CapabilityInvoker {
  private readonly logger = new Logger('Restap');
  private readonly handlers = new Map<string, RouteHandler>();
  private builder?: RouteBuilder;

  constructor(
    private readonly registry: RestapRegistry,
    private readonly contexts: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Runs the capability with `args` spread over its path, query and body. Never rejects: an
   * unknown id is 404 `unknown_capability`, a refusal or failure comes back as the route's
   * error, and an aborted `signal` ends the wait with 499 `aborted` (the handler's connection
   * closes, so Observables and streams it returned are torn down).
   */
  async invoke(capabilityId: string, args: Record<string, unknown>, caller: RestapCaller, signal?: AbortSignal, events?: CapabilityCallEvents): Promise<InvocationResult> {
    const capability = this.registry.getCapability(capabilityId);
    if (!capability?.route) return failure(404, 'unknown_capability', `No capability has the id '${capabilityId}'.`);
    if (signal?.aborted) return aborted(signal);
    const init = toSyntheticRequest(capability, args ?? {}, caller);
    if (events) init.events = events;
    const req = new SyntheticRequest(init);
    const res = new SyntheticResponse(req);
    let fellThrough: unknown;
    const next = (error?: unknown): void => {
      fellThrough = error ?? 'next';
      res.end();
    };
    const onAbort = (): void => {
      req.abort(signal?.reason);
      res.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const handler = await this.handlerFor(capability, req);
      await Promise.race([handler(req, res, next).then(() => (res.writableEnded ? undefined : res.done)), res.done]);
    } catch (error) {
      // The router proxy hands every error to the exception filters; reaching here means the
      // handler could not even be built (e.g. a request-scoped provider failed to resolve).
      this.logger.error(`Capability ${capabilityId} could not be invoked: ${(error as Error)?.message ?? String(error)}`);
      return failure(500, 'internal_error', 'The capability could not be invoked.');
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted && !res.writableEnded) return aborted(signal);
    if (fellThrough !== undefined) return failure(404, 'not_found', `The route of '${capabilityId}' passed the request on (next()) without answering.`);
    const body = res.body();
    return res.statusCode >= 400 ? toInvocationFailure(res.statusCode, body) : { ok: true, status: res.statusCode, body };
  }

  /** The route's handler: built once for a static controller, per call for a request-scoped one. */
  private async handlerFor(capability: RegisteredCapability, req: SyntheticRequest): Promise<RouteHandler> {
    const { wrapper } = capability.route!;
    const builder = (this.builder ??= this.createBuilder());
    if (wrapper.isDependencyTreeStatic()) {
      let handler = this.handlers.get(capability.options.id);
      if (!handler) {
        handler = builder.build(wrapper.instance as object, capability, STATIC_CONTEXT, wrapper.id);
        this.handlers.set(capability.options.id, handler);
      }
      return handler;
    }
    // As Nest's RouterExplorer does for a request-scoped controller: a context per request, with
    // the request registered as its REQUEST provider.
    const contextId = ContextIdFactory.getByRequest(req);
    this.moduleRef.registerRequestByContextId(req, contextId);
    const instance = await this.moduleRef.resolve(wrapper.metatype as Type<object>, contextId, { strict: false });
    return builder.build(instance, capability, contextId, wrapper.id);
  }

  /**
   * Nest's own router parts, wired as its RouterExplorer wires them. Built on first use, after
   * bootstrap, so the global guards, pipes, interceptors and filters the host registered with
   * `app.useGlobal*()` before listening are all in.
   */
  private createBuilder(): RouteBuilder {
    // The container is not injectable; ExternalContextCreator, Nest's own helper for running a
    // method with enhancers outside the router, is, and holds it.
    const container = (this.contexts as unknown as { container: NestContainer }).container;
    const config = container.applicationConfig!;
    const httpAdapter = container.getHttpAdapterRef();
    const context = new RouterExecutionContext(
      new RouteParamsFactory(config),
      new PipesContextCreator(container, config),
      new PipesConsumer(),
      new GuardsContextCreator(container, config),
      new GuardsConsumer(),
      new InterceptorsContextCreator(container, config),
      new InterceptorsConsumer(),
      httpAdapter,
    );
    const filters = new RouterExceptionFilters(container, config, httpAdapter);
    const proxy = new RouterProxy();
    return {
      build: (instance, capability, contextId, inquirerId) => {
        const { wrapper, requestMethod } = capability.route!;
        const moduleKey = wrapper.host!.token;
        const callback = (instance as Record<string, (...args: unknown[]) => unknown>)[capability.methodName];
        const execution = context.create(instance as never, callback, capability.methodName, moduleKey, requestMethod, contextId, inquirerId);
        const handler = filters.create(instance as never, callback as never, moduleKey, contextId, inquirerId);
        return proxy.createProxy(execution, handler) as RouteHandler;
      },
    };
  }
}

function aborted(signal: AbortSignal): InvocationResult {
  const reason = signal.reason as { message?: unknown } | undefined;
  return failure(499, 'aborted', typeof reason?.message === 'string' ? reason.message : 'The call was aborted.');
}
