import { Injectable, Logger, OnModuleInit, RequestMethod, Type } from '@nestjs/common';
import { ApplicationConfig, DiscoveryService, MetadataScanner, ModulesContainer } from '@nestjs/core';
import { RoutePathFactory } from '@nestjs/core/router/route-path-factory.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { CAPABILITY_ID_PATTERN } from '../../restap.constants';
import type { CapabilityParameter, JsonSchema } from '../../interfaces/catalog.interface';
import type { CapabilityOptions } from '../../interfaces/capability-options.interface';
import { DtoSchemaFactory } from '../../schema/dto-schema.factory';
import { schemaOfPipes } from '../../schema/route-pipe.schema';
import { assertCapabilityOptionKeys } from './capability-options.check';
import { explicitOutput, outputSchemaOf, swaggerOutput, type OutputShape } from './capability-output';
import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';
import { RestapMetadataAccessor, RouteArgument } from './restap-metadata.accessor';
import { RestapRegistry } from './restap.registry';

type Handler = (...args: unknown[]) => unknown;

/**
 * Walks controllers and providers once, at bootstrap: records `@Capability()` routes with their
 * derived method, endpoint and schemas, the `@Talk()` and `@News()` handlers, and where the
 * module's own routes are served. Misuse fails startup with the class and method named.
 */
@Injectable()
export class RestapExplorer implements OnModuleInit {
  private readonly logger = new Logger('Restap');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: RestapMetadataAccessor,
    private readonly registry: RestapRegistry,
    private readonly appConfig: ApplicationConfig,
    private readonly modules: ModulesContainer,
  ) {}

  onModuleInit(): void {
    const routes = new RoutePathFactory(this.appConfig);
    const schemas = new DtoSchemaFactory();
    for (const wrapper of this.discovery.getControllers()) {
      this.exploreController(wrapper, routes, schemas);
    }
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      this.exploreProvider(wrapper);
    }
  }

  private exploreController(wrapper: InstanceWrapper, routes: RoutePathFactory, schemas: DtoSchemaFactory): void {
    const { instance, metatype } = wrapper;
    if (!instance || !metatype) return;
    const controller = metatype as Type<unknown>;
    const prototype = Object.getPrototypeOf(instance) as Record<string, Handler>;
    const ownRoute = this.accessor.getOwnRoute(controller);
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const handler = prototype[methodName];
      const capability = this.accessor.getCapability(handler);
      const requestMethod = this.accessor.getRequestMethod(handler);
      if (ownRoute && requestMethod !== undefined && !this.registry.paths[ownRoute]) {
        this.registry.paths[ownRoute] = this.endpointOf(routes, wrapper, controller, handler, requestMethod);
      }
      if (!capability) continue;
      const where = `${controller.name}.${methodName}`;
      this.assertCapability(capability, where, requestMethod);
      const args = this.accessor.getRouteArguments(controller, prototype, methodName);
      const output = this.outputOf(capability, handler, prototype, methodName, where);
      const outputSchema = output && outputSchemaOf(output, schemas);
      if (output && typeof output.item === 'function' && !DtoSchemaFactory.primitive(output.item)) {
        this.warnIfBlind(capability.id, 'output', output.item, schemas.create(output.item));
      }
      const inputSchema = this.inputSchema(capability, args, schemas);
      const input = capability.input ?? this.classOrUndefined(args.find((a) => a.kind === 'body' && !a.name)?.type);
      if (input && inputSchema) this.warnIfBlind(capability.id, 'input', input, inputSchema);
      this.registry.addCapability({
        options: capability,
        className: controller.name,
        methodName,
        method: RequestMethod[requestMethod as RequestMethod],
        endpoint: this.endpointOf(routes, wrapper, controller, handler, requestMethod as RequestMethod),
        inputSchema,
        outputSchema,
        parameters: this.parameters(args, schemas),
        route: { wrapper, requestMethod: requestMethod as RequestMethod },
      });
    }
  }

  /** `output`, else the 2xx type @nestjs/swagger was given, else the declared return class. */
  private outputOf(capability: CapabilityOptions, handler: Handler, prototype: object, methodName: string, where: string): OutputShape | undefined {
    if (capability.output !== undefined) return explicitOutput(capability.output, where);
    const documented = swaggerOutput(this.accessor.getSwaggerResponses(handler));
    if (documented) return documented;
    const declared = this.classOrUndefined(this.accessor.getReturnType(prototype, methodName));
    return declared && { item: declared, isArray: false };
  }

  /**
   * A DTO whose schema shows no property (no class-validator decorator, no @ApiProperty, no
   * swagger CLI plugin metadata) would be advertised as an empty object to every door: say so at
   * startup, naming the class and what to add, instead of publishing a schema nobody can trust.
   */
  private warnIfBlind(id: string, role: 'input' | 'output', dto: Type<unknown>, schema: JsonSchema): void {
    if (schema.type !== 'object' || Object.keys((schema.properties ?? {}) as object).length > 0 || DtoSchemaFactory.primitive(dto)) return;
    this.logger.warn(
      `Capability '${id}': the ${role} class ${dto.name} shows no properties to the schema (no class-validator decorators, no @ApiProperty()), ` +
        `so discovery and MCP advertise it as an empty object. Add class-validator decorators (@IsString(), @IsInt(), …) or @ApiProperty() ` +
        `to its properties, or build with the @nestjs/swagger CLI plugin.`,
    );
  }

  private assertCapability(capability: CapabilityOptions, where: string, method: RequestMethod | undefined): void {
    assertCapabilityOptionKeys(capability, where);
    if (method === undefined) {
      throw new RestapBootstrapError(
        `@Capability({ id: '${capability.id}' }) on ${where} is not on a route handler: add @Get(), @Post() or another route decorator, or remove @Capability().`,
      );
    }
    if (typeof capability.id !== 'string' || !CAPABILITY_ID_PATTERN.test(capability.id)) {
      throw new RestapBootstrapError(
        `@Capability() on ${where} has id ${JSON.stringify(capability.id)}, which is not a dotted identifier: use letters, digits, '_' or '-' in '.'-separated segments that start with a letter, e.g. 'text.echo'.`,
      );
    }
    if (typeof capability.title !== 'string' || !capability.title.trim()) {
      throw new RestapBootstrapError(`@Capability({ id: '${capability.id}' }) on ${where} needs a non-empty title.`);
    }
    const existing = this.registry.getCapability(capability.id);
    if (existing) {
      throw new RestapBootstrapError(
        `Duplicate capability id '${capability.id}': declared on ${existing.className}.${existing.methodName} and on ${where}. Capability ids must be unique.`,
      );
    }
  }

  /** Served path with global prefix, RouterModule path and URI version; `:id` shown as `{id}`. */
  private endpointOf(routes: RoutePathFactory, wrapper: InstanceWrapper, controller: Type<unknown>, handler: Handler, method: RequestMethod): string {
    const hostModule = wrapper.host?.metatype;
    const modulePath = hostModule ? this.accessor.getModulePath(hostModule, this.modules.applicationId) : undefined;
    const paths = routes.create(
      {
        ctrlPath: this.accessor.getPath(controller),
        methodPath: this.accessor.getPath(handler),
        modulePath,
        globalPrefix: this.appConfig.getGlobalPrefix(),
        controllerVersion: this.accessor.getVersion(controller),
        methodVersion: this.accessor.getVersion(handler),
        versioningOptions: this.appConfig.getVersioning(),
      } as Parameters<RoutePathFactory['create']>[0],
      method,
    );
    const path = paths[0] ?? '/';
    return path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}') || '/';
  }

  private inputSchema(capability: CapabilityOptions, args: RouteArgument[], schemas: DtoSchemaFactory): JsonSchema | undefined {
    if (capability.input) return schemas.create(capability.input);
    const bodies = args.filter((a) => a.kind === 'body');
    const whole = bodies.find((a) => !a.name);
    if (whole) return this.classOrUndefined(whole.type) ? schemas.create(whole.type as Type<unknown>) : { type: 'object' };
    if (!bodies.length) return undefined;
    const properties = Object.fromEntries(bodies.map((a) => [a.name, (a.type && DtoSchemaFactory.primitive(a.type)) ?? {}]));
    return { type: 'object', properties, required: bodies.map((a) => a.name) };
  }

  private parameters(args: RouteArgument[], schemas: DtoSchemaFactory): CapabilityParameter[] | undefined {
    const params: CapabilityParameter[] = [];
    for (const arg of args) {
      if (arg.kind === 'body') continue;
      const location = arg.kind === 'param' ? 'path' : 'query';
      if (arg.name) {
        const schema = schemaOfPipes(arg.pipes) ?? DtoSchemaFactory.primitive(arg.type) ?? { type: 'string' };
        params.push({ name: arg.name, in: location, required: location === 'path', schema });
        continue;
      }
      const dto = this.classOrUndefined(arg.type);
      if (!dto) continue;
      const schema = schemas.create(dto);
      const required = new Set((schema.required ?? []) as string[]);
      for (const [name, prop] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
        const { description, ...rest } = prop;
        params.push({ name, in: location, required: location === 'path' || required.has(name), schema: rest, ...(typeof description === 'string' ? { description } : {}) });
      }
    }
    return params.length ? params : undefined;
  }

  private exploreProvider(wrapper: InstanceWrapper): void {
    const { instance, metatype } = wrapper;
    if (!instance || typeof instance !== 'object' || !metatype || !wrapper.isDependencyTreeStatic()) return;
    const prototype = Object.getPrototypeOf(instance) as Record<string, Handler>;
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const handler = prototype[methodName];
      const isTalk = this.accessor.isTalk(handler);
      const isNews = this.accessor.isNews(handler);
      if (!isTalk && !isNews) continue;
      const entry = { className: (metatype as Type<unknown>).name, methodName, invoke: handler.bind(instance) };
      if (isNews && !this.registry.getNewsHandlers().some((h) => h.className === entry.className && h.methodName === methodName)) {
        this.registry.addNewsHandler(entry);
      }
      if (!isTalk) continue;
      const existing = this.registry.getTalkHandler();
      if (existing && !(existing.className === entry.className && existing.methodName === methodName)) {
        throw new RestapBootstrapError(
          `@Talk() is on both ${existing.className}.${existing.methodName} and ${entry.className}.${methodName}: exactly one method may answer /talk.`,
        );
      }
      this.registry.setTalkHandler(entry);
    }
  }

  private classOrUndefined(type: unknown): Type<unknown> | undefined {
    if (typeof type !== 'function' || DtoSchemaFactory.primitive(type)) return undefined;
    // Promise and Observable (or any thenable / subscribable class) say how a handler answers, not what.
    const proto = (type as { prototype?: Record<string, unknown> }).prototype;
    if (typeof proto?.then === 'function' || typeof proto?.subscribe === 'function') return undefined;
    return type as Type<unknown>;
  }
}
