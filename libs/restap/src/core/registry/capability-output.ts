import type { Type } from '@nestjs/common';
import type { JsonSchema } from '../../interfaces/catalog.interface';
import type { CapabilityOutput } from '../../interfaces/capability-options.interface';
import { DtoSchemaFactory } from '../../schema/dto-schema.factory';
import { RestapBootstrapError } from '../../exceptions/restap-bootstrap.error';

/** What a route answers: one item type, or a JSON array of it. */
export interface OutputShape {
  item: Type<unknown> | string;
  isArray: boolean;
}

/** One entry of @nestjs/swagger's `swagger/apiResponse` metadata, as far as we read it. */
export interface SwaggerResponse {
  type?: unknown;
  isArray?: boolean;
}

/** OpenAPI type names @ApiResponse accepts as strings (`type: 'string'`). */
const SWAGGER_TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/** `output: TodoDto` or `output: [TodoDto]`; anything else fails startup with where it is. */
export function explicitOutput(output: CapabilityOutput, where: string): OutputShape {
  const isArray = Array.isArray(output);
  const item = isArray ? (output as readonly unknown[])[0] : output;
  if ((isArray && (output as readonly unknown[]).length !== 1) || typeof item !== 'function') {
    throw new RestapBootstrapError(
      `@Capability() on ${where} has an output that is neither a class nor a one-element array of a class: use output: TodoDto, output: [TodoDto] or output: [String].`,
    );
  }
  return { item: item as Type<unknown>, isArray };
}

/**
 * The response type @nestjs/swagger was told about: the lowest 2xx status with a `type`
 * (`@ApiOkResponse({ type: [TodoDto] })`, `@ApiCreatedResponse({ type: TodoDto, isArray: true })`).
 */
export function swaggerOutput(responses: Record<string, SwaggerResponse> | undefined): OutputShape | undefined {
  if (!responses) return undefined;
  const success = Object.keys(responses).filter((status) => /^2\d\d$/.test(status)).sort();
  for (const status of success) {
    const { type, isArray } = responses[status];
    // `type: () => TodoDto` (lazy, for circular imports) is an arrow function: no prototype.
    const item = typeof type === 'function' && !type.prototype ? (type as () => unknown)() : type;
    if (typeof item === 'function' || (typeof item === 'string' && SWAGGER_TYPE_NAMES.has(item))) {
      return { item: item as Type<unknown> | string, isArray: isArray === true };
    }
  }
  return undefined;
}

/**
 * The `output_schema` of a shape. An array's item schema keeps its `$ref`s to `#/$defs/…`, so the
 * `$defs` move up to the array, the root of the document.
 */
export function outputSchemaOf(shape: OutputShape, schemas: DtoSchemaFactory): JsonSchema {
  const item: JsonSchema =
    typeof shape.item === 'string' ? { type: shape.item } : (DtoSchemaFactory.primitive(shape.item) ?? schemas.create(shape.item));
  if (!shape.isArray) return item;
  const { $defs, ...items } = item;
  return { type: 'array', items, ...($defs ? { $defs } : {}) };
}
