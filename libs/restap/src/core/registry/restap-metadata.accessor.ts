import { Injectable, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_PATH, PATH_METADATA, ROUTE_ARGS_METADATA, VERSION_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import { CAPABILITY_METADATA, NEWS_METADATA, ROUTE_METADATA, TALK_METADATA } from '../../restap.constants';
import type { RestapRoutePaths } from './restap.registry';
import type { CapabilityOptions } from '../../interfaces/capability-options.interface';
import type { SwaggerResponse } from './capability-output';

type Handler = (...args: unknown[]) => unknown;
export type VersionValue = string | symbol | Array<string | symbol>;

/** One `@Body()`, `@Query()` or `@Param()` argument of a route handler. */
export interface RouteArgument {
  kind: 'body' | 'query' | 'param';
  /** The property name for `@Query('q')`, undefined for a whole-object `@Query()`. */
  name?: string;
  type?: Type<unknown>;
  /** The argument's own pipes (`@Param('id', ParseIntPipe)`): classes or instances. */
  pipes: unknown[];
}

/** Metadata key of @nestjs/swagger's `@ApiResponse()` family on a method. */
const SWAGGER_API_RESPONSE = 'swagger/apiResponse';

type ArgMeta = { index: number; data?: unknown; pipes?: unknown[] };

const ARG_KINDS: Record<number, RouteArgument['kind']> = { 3: 'body', 4: 'query', 5: 'param' };

/** Typed reads of the metadata our decorators and Nest's routing decorators leave on classes and methods. */
@Injectable()
export class RestapMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  getCapability(handler: Handler): CapabilityOptions | undefined {
    return this.reflector.get<CapabilityOptions | undefined>(CAPABILITY_METADATA, handler);
  }

  isTalk(handler: Handler): boolean {
    return this.reflector.get<boolean | undefined>(TALK_METADATA, handler) === true;
  }

  isNews(handler: Handler): boolean {
    return this.reflector.get<boolean | undefined>(NEWS_METADATA, handler) === true;
  }

  /** The route's request method, or undefined when the method is not a route handler. */
  getRequestMethod(handler: Handler): RequestMethod | undefined {
    if (this.reflector.get<unknown>(PATH_METADATA, handler) === undefined) return undefined;
    return this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
  }

  getPath(target: Handler | Type<unknown>): string {
    const path = this.reflector.get<string | string[] | undefined>(PATH_METADATA, target);
    return (Array.isArray(path) ? path[0] : path) ?? '/';
  }

  /** Which of the module's own routes a controller serves (set by the talk and news controllers). */
  getOwnRoute(controller: Type<unknown>): keyof RestapRoutePaths | undefined {
    return this.reflector.get<keyof RestapRoutePaths | undefined>(ROUTE_METADATA, controller);
  }

  /** The RouterModule path of a module: the one set for this application, else the global one. */
  getModulePath(module: Type<unknown>, applicationId: string | undefined): string | undefined {
    return (Reflect.getMetadata(MODULE_PATH + applicationId, module) ?? Reflect.getMetadata(MODULE_PATH, module)) as string | undefined;
  }

  getVersion(target: Handler | Type<unknown>): VersionValue | undefined {
    return this.reflector.get<VersionValue | undefined>(VERSION_METADATA, target);
  }

  /** @nestjs/swagger's `@ApiResponse()` entries by status (read, never required). */
  getSwaggerResponses(handler: Handler): Record<string, SwaggerResponse> | undefined {
    return this.reflector.get<Record<string, SwaggerResponse> | undefined>(SWAGGER_API_RESPONSE, handler);
  }

  getReturnType(prototype: object, methodName: string): Type<unknown> | undefined {
    return Reflect.getMetadata('design:returntype', prototype, methodName) as Type<unknown> | undefined;
  }

  /** The handler's `@Body()`, `@Query()` and `@Param()` arguments, in parameter order. */
  getRouteArguments(controller: Type<unknown>, prototype: object, methodName: string): RouteArgument[] {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<string, ArgMeta>;
    const types = (Reflect.getMetadata('design:paramtypes', prototype, methodName) ?? []) as Array<Type<unknown> | undefined>;
    return Object.entries(args)
      .map(([key, meta]) => ({ kind: ARG_KINDS[Number(key.split(':')[0])], meta }))
      .filter((a): a is { kind: RouteArgument['kind']; meta: ArgMeta } => a.kind !== undefined)
      .sort((a, b) => a.meta.index - b.meta.index)
      .map(({ kind, meta }) => ({ kind, name: typeof meta.data === 'string' ? meta.data : undefined, type: types[meta.index], pipes: meta.pipes ?? [] }));
  }
}
