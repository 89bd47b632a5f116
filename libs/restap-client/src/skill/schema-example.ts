import { isRecord } from '../catalog/catalog.validator';
import type { JsonSchema } from '../interfaces/catalog.interface';

/**
 * A plausible value for a JSON Schema, for curl examples in SKILL.md: the schema's own
 * `examples` / `example` / `default` / `const` / `enum` first, else a value of the right type.
 * Only required properties are filled so the example stays minimal but valid.
 */
export function exampleFor(schema: unknown, depth = 0): unknown {
  if (!isRecord(schema) || depth > 6) return {};
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['example', 'default', 'const'] as const) if (schema[key] !== undefined) return schema[key];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return exampleFor(options[0], depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringExample(schema);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [exampleFor(schema.items, depth + 1)];
    case 'null':
      return null;
    default:
      return objectExample(schema, depth);
  }
}

function objectExample(schema: JsonSchema, depth: number): Record<string, unknown> {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const keys = required.length > 0 ? required : Object.keys(properties).slice(0, 1);
  return Object.fromEntries(keys.map((key) => [key, exampleFor(properties[key], depth + 1)]));
}

function stringExample(schema: JsonSchema): string {
  switch (schema.format) {
    case 'date-time':
      return '2025-01-01T12:00:00Z';
    case 'date':
      return '2025-01-01';
    case 'email':
      return 'someone@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com';
    case 'uuid':
      return '3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f';
    default:
      return typeof schema.minLength === 'number' && schema.minLength > 11 ? 'x'.repeat(schema.minLength) : 'Hello world';
  }
}
