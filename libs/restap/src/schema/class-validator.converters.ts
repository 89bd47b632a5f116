import type { Type } from '@nestjs/common';
import { ValidationTypes } from 'class-validator';
import type { ISchemaConverters } from 'class-validator-jsonschema/build/defaultConverters';
import type { JsonSchema } from '../interfaces/catalog.interface';

/** The metadata fields our converters read (class-validator's ValidationMetadata). */
interface Meta {
  target: Function | string;
  propertyName: string;
  constraints: unknown[];
}

const ISO_DATE_OR_DATE_TIME = { oneOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }] };

/** JSON type of a list of constants, or undefined when they mix types. */
function typeOfValues(values: unknown[]): string | undefined {
  const types = new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)));
  if (types.size === 2 && types.has('integer') && types.has('number')) return 'number';
  const [only] = types;
  return types.size === 1 && ['string', 'integer', 'number', 'boolean'].includes(only) ? only : undefined;
}

/** `{ type, enum }` for a list of constants; just `{ enum }` when they mix types. */
export function enumSchema(values: unknown[]): JsonSchema {
  const type = typeOfValues(values);
  return type ? { type, enum: values } : { enum: values };
}

/** The values of a TypeScript enum, without the reverse mappings of its numeric members. */
export function enumValues(entity: Record<string, unknown>): unknown[] {
  return Object.keys(entity)
    .filter((key) => typeof entity[entity[key] as string] !== 'number')
    .map((key) => entity[key]);
}

const designType = (meta: Meta): unknown =>
  typeof meta.target === 'function' ? Reflect.getMetadata('design:type', meta.target.prototype, meta.propertyName) : undefined;

/**
 * Converters that replace class-validator-jsonschema defaults which give a wrong or incomplete
 * schema, plus nested-class references named by `refName` (unique per class, unlike the
 * library's class-name keys, which merge two DTOs that share a name).
 */
export function restapConverters(refName: (type: Type<unknown>) => string, prefix: string): ISchemaConverters {
  const reference = (type: unknown): JsonSchema | undefined => {
    if (typeof type !== 'function') return undefined;
    if (type === String) return { type: 'string' };
    if (type === Number) return { type: 'number' };
    if (type === Boolean) return { type: 'boolean' };
    if (type === Date) return { type: 'string', format: 'date-time' };
    if (type === Array || type === Object || type === Promise) return {};
    return { $ref: prefix + refName(type as Type<unknown>) };
  };
  return {
    [ValidationTypes.NESTED_VALIDATION]: (meta: Meta, options: { classTransformerMetadataStorage?: { findTypeMetadata(t: Function, p: string): { typeFunction(): unknown } | undefined } }) => {
      if (typeof meta.target !== 'function') return {};
      const declared = options.classTransformerMetadataStorage?.findTypeMetadata(meta.target, meta.propertyName);
      return reference(declared ? declared.typeFunction() : designType(meta)) ?? {};
    },
    // Custom validators say nothing about the shape; the declared type still does.
    [ValidationTypes.CUSTOM_VALIDATION]: (meta: Meta) => reference(designType(meta)) ?? {},
    // Was a regex demanding fractional seconds ("2024-01-01T00:00:00Z" failed it); IsDateString is isISO8601.
    isDateString: ISO_DATE_OR_DATE_TIME,
    // 'url' is not a JSON Schema format; 'uri' is.
    isUrl: { type: 'string', format: 'uri' },
    // Was always type 'string' and listed the reverse mappings of numeric enums.
    isEnum: (meta: Meta) => enumSchema(enumValues(meta.constraints[0] as Record<string, unknown>)),
    // Mixed-type lists gave no schema at all.
    isIn: (meta: Meta) => enumSchema(meta.constraints[0] as unknown[]),
    // A string pattern was dropped (only RegExp#source was read).
    matches: (meta: Meta) => {
      const pattern = meta.constraints[0];
      return { type: 'string', pattern: pattern instanceof RegExp ? pattern.source : String(pattern) };
    },
    // These set type 'number', which overrode @IsInt's 'integer' when written above it.
    min: (meta: Meta) => ({ minimum: meta.constraints[0] }),
    max: (meta: Meta) => ({ maximum: meta.constraints[0] }),
    isPositive: { exclusiveMinimum: 0 },
    isNegative: { exclusiveMaximum: 0 },
    isDivisibleBy: (meta: Meta) => ({ multipleOf: meta.constraints[0] }),
    // Forced type 'string' even on arrays.
    isNotEmpty: (meta: Meta) => {
      const type = designType(meta);
      if (type === String) return { type: 'string', minLength: 1 };
      if (type === Array) return { type: 'array', minItems: 1 };
      return { not: { type: 'null' } };
    },
  } as ISchemaConverters;
}
