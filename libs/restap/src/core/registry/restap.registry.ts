import { Injectable, type RequestMethod } from '@nestjs/common';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { CapabilityParameter, JsonSchema } from '../../interfaces/catalog.interface';
import type { CapabilityOptions } from '../../interfaces/capability-options.interface';

/** A `@Capability()` route as found at bootstrap, with everything the catalog needs. */
export interface RegisteredCapability {
  options: CapabilityOptions;
  className: string;
  methodName: string;
  method: string;
  endpoint: string;
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  parameters?: CapabilityParameter[];
  /** The controller and route the capability is served by, for the in-process invoker. */
  route?: CapabilityRoute;
}

/** Where Nest serves a capability: its controller's wrapper and the route's request method. */
export interface CapabilityRoute {
  wrapper: InstanceWrapper;
  requestMethod: RequestMethod;
}

/** A provider method marked with `@Talk()` or `@News()`, bound to its instance. */
export interface RegisteredHandler {
  className: string;
  methodName: string;
  invoke: (...args: unknown[]) => unknown;
}

/** The module's own routes, as served (global prefix and versioning applied). */
export interface RestapRoutePaths {
  talk?: string;
  news?: string;
}

/** What the explorer found at bootstrap. Read-only for everyone else. */
@Injectable()
export class RestapRegistry {
  private readonly capabilities = new Map<string, RegisteredCapability>();
  private readonly capabilityByHandler = new Map<string, RegisteredCapability>();
  private talk?: RegisteredHandler;
  private readonly news: RegisteredHandler[] = [];
  readonly paths: RestapRoutePaths = {};

  addCapability(capability: RegisteredCapability): void {
    this.capabilities.set(capability.options.id, capability);
    this.capabilityByHandler.set(`${capability.className}.${capability.methodName}`, capability);
  }

  getCapability(id: string): RegisteredCapability | undefined {
    return this.capabilities.get(id);
  }

  getCapabilityOf(className: string, methodName: string): RegisteredCapability | undefined {
    return this.capabilityByHandler.get(`${className}.${methodName}`);
  }

  getCapabilities(): RegisteredCapability[] {
    return [...this.capabilities.values()];
  }

  setTalkHandler(handler: RegisteredHandler): void {
    this.talk = handler;
  }

  getTalkHandler(): RegisteredHandler | undefined {
    return this.talk;
  }

  addNewsHandler(handler: RegisteredHandler): void {
    this.news.push(handler);
  }

  getNewsHandlers(): readonly RegisteredHandler[] {
    return this.news;
  }
}
