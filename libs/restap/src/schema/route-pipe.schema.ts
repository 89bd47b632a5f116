import { ParseArrayPipe, ParseBoolPipe, ParseEnumPipe, ParseFloatPipe, ParseIntPipe, ParseUUIDPipe } from '@nestjs/common';
import type { JsonSchema } from '../interfaces/catalog.interface';
import { DtoSchemaFactory } from './dto-schema.factory';

/** A pipe as `@Param('id', ParseIntPipe)` or `@Param('id', new ParseIntPipe())` leaves it. */
const isPipe = (pipe: unknown, type: abstract new (...args: never[]) => unknown): boolean => pipe === type || pipe instanceof type;

/** The enum's values a request may carry (the reverse keys of a numeric enum are not values). */
function enumValues(enumType: Record<string, unknown>): string[] {
  return Object.values(enumType).filter((v): v is string => typeof v === 'string' && typeof enumType[v] !== 'number');
}

/**
 * What a route parameter's built-in pipes accept, as JSON Schema, so discovery and MCP advertise
 * what the route takes: `ParseIntPipe` → integer, `ParseFloatPipe` → number, `ParseBoolPipe` →
 * boolean, `ParseUUIDPipe` → string with `format: uuid`, `ParseEnumPipe` → `enum`,
 * `ParseArrayPipe` → array (of its `items`' type). Undefined when no such pipe is there (the
 * declared TypeScript type decides). The first pipe that says something wins, as it runs first.
 */
export function schemaOfPipes(pipes: readonly unknown[]): JsonSchema | undefined {
  for (const pipe of pipes) {
    if (isPipe(pipe, ParseIntPipe)) return { type: 'integer' };
    if (isPipe(pipe, ParseFloatPipe)) return { type: 'number' };
    if (isPipe(pipe, ParseBoolPipe)) return { type: 'boolean' };
    if (isPipe(pipe, ParseUUIDPipe)) return { type: 'string', format: 'uuid' };
    if (pipe instanceof ParseEnumPipe) {
      // `enumType` is the pipe's own (protected) field: the enum it was built with.
      const values = enumValues((pipe as unknown as { enumType: Record<string, unknown> }).enumType ?? {});
      if (values.length) return { type: 'string', enum: values };
    }
    if (pipe instanceof ParseArrayPipe) {
      const items = (pipe as unknown as { options?: { items?: unknown } }).options?.items;
      return { type: 'array', items: (items && DtoSchemaFactory.primitive(items)) || { type: 'string' } };
    }
  }
  return undefined;
}
