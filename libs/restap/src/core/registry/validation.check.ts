import { Injectable, Logger, OnApplicationBootstrap, ValidationPipe, type Type } from '@nestjs/common';
import { PIPES_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { RestapMetadataAccessor } from './restap-metadata.accessor';
import { RestapRegistry, type RegisteredCapability } from './restap.registry';

const isValidationPipe = (pipe: unknown): boolean =>
  pipe instanceof ValidationPipe || (typeof pipe === 'function' && (pipe === ValidationPipe || pipe.prototype instanceof ValidationPipe));

/**
 * Without a `ValidationPipe`, class-validator constraints are advertised (discovery and MCP say
 * `minimum: 1`) but never enforced: `quantity: -50` reaches the handler from every door. At
 * bootstrap (after `main.ts`'s `app.useGlobalPipes()` and `APP_PIPE` providers are in place) this
 * warns once, naming the capabilities whose DTO has constraints and no ValidationPipe runs for.
 */
@Injectable()
export class ValidationCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('Restap');

  constructor(
    private readonly registry: RestapRegistry,
    private readonly config: ApplicationConfig,
    private readonly accessor: RestapMetadataAccessor,
  ) {}

  onApplicationBootstrap(): void {
    const unvalidated = this.unvalidated();
    if (!unvalidated.length) return;
    const named = unvalidated.map((u) => `'${u.id}' (${u.dto})`).join(', ');
    this.logger.warn(
      `No ValidationPipe runs for capability ${named}: its class-validator constraints are advertised in discovery and MCP but not enforced, ` +
        `so a request that breaks them reaches the handler. Add app.useGlobalPipes(new ValidationPipe({ transform: true })) in main.ts ` +
        `(or an APP_PIPE provider, or @UsePipes(ValidationPipe) on the controller).`,
    );
  }

  /** Capabilities with a constrained DTO and no ValidationPipe: global, controller, method or argument. */
  unvalidated(): Array<{ id: string; dto: string }> {
    const global = [...this.config.getGlobalPipes(), ...this.config.getGlobalRequestPipes().map((w) => w.metatype)];
    if (global.some(isValidationPipe)) return [];
    return this.registry.getCapabilities().flatMap((capability) => {
      const dto = this.constrainedDtoOf(capability);
      return dto ? [{ id: capability.options.id, dto: dto.name }] : [];
    });
  }

  private constrainedDtoOf(capability: RegisteredCapability): Type<unknown> | undefined {
    const controller = capability.route?.wrapper.metatype as Type<unknown> | undefined;
    if (!controller) return undefined;
    const handler = (controller.prototype as Record<string, unknown>)[capability.methodName] as object;
    const routePipes = [...((Reflect.getMetadata(PIPES_METADATA, controller) ?? []) as unknown[]), ...((Reflect.getMetadata(PIPES_METADATA, handler) ?? []) as unknown[])];
    if (routePipes.some(isValidationPipe)) return undefined;
    const args = this.accessor.getRouteArguments(controller, controller.prototype as object, capability.methodName);
    const dtos = [
      ...(capability.options.input ? [capability.options.input] : []),
      ...args.filter((a) => !a.name && !a.pipes.some(isValidationPipe)).map((a) => a.type),
    ];
    return dtos.find((dto): dto is Type<unknown> => typeof dto === 'function' && hasConstraints(dto));
  }
}

function hasConstraints(dto: Type<unknown>): boolean {
  return getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false).length > 0;
}
