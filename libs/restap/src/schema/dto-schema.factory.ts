import type { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { JsonSchema } from '../interfaces/catalog.interface';

// class-transformer keeps @Type() metadata in a storage it exports only from this deep path.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage.js') as typeof import('class-transformer/types/storage');

const DEFS = '#/$defs/';
/** Metadata keys written by @nestjs/swagger's @ApiProperty (read, never required). */
const SWAGGER_PROPS = 'swagger/apiModelProperties';
const SWAGGER_PROPS_ARRAY = 'swagger/apiModelPropertiesArray';
/** @ApiProperty fields that describe rather than constrain; merged into the derived schema. */
const SWAGGER_DOC_FIELDS = ['description', 'example', 'examples', 'default', 'title', 'deprecated', 'format'] as const;

const PRIMITIVES = new Map<unknown, JsonSchema>([
  [String, { type: 'string' }], [Number, { type: 'number' }], [Boolean, { type: 'boolean' }],
  [Date, { type: 'string', format: 'date-time' }], [Array, { type: 'array' }], [Object, { type: 'object' }],
]);

/**
 * Derives JSON Schemas from DTO classes: class-validator decorators give types and constraints
 * (through class-validator-jsonschema), @ApiProperty adds descriptions and examples. Nested DTOs
 * are referenced under `$defs` so each schema is self-contained. Built once, at bootstrap.
 */
export class DtoSchemaFactory {
  private readonly definitions: Record<string, JsonSchema>;
  private readonly cache = new Map<Type<unknown>, JsonSchema>();

  constructor() {
    this.definitions = validationMetadatasToSchemas({
      refPointerPrefix: DEFS,
      classTransformerMetadataStorage: defaultMetadataStorage,
      classValidatorMetadataStorage: getMetadataStorage(),
    }) as Record<string, JsonSchema>;
  }

  /** JSON Schema of a primitive constructor, or undefined for a class. */
  static primitive(type: unknown): JsonSchema | undefined {
    const schema = PRIMITIVES.get(type);
    return schema && { ...schema };
  }

  /** The schema of `dto`, with every nested DTO it references under `$defs`. */
  create(dto: Type<unknown>): JsonSchema {
    const primitive = DtoSchemaFactory.primitive(dto);
    if (primitive) return primitive;
    const cached = this.cache.get(dto);
    if (cached) return cached;
    const root = this.definition(dto);
    const defs: Record<string, JsonSchema> = {};
    const pending = [...this.refsOf(root)];
    while (pending.length) {
      const name = pending.pop() as string;
      if (name === dto.name || defs[name]) continue;
      const def = this.definitions[name] ? this.withSwagger(this.definitions[name], this.classNamed(name)) : { type: 'object' };
      defs[name] = def;
      pending.push(...this.refsOf(def));
    }
    const schema = Object.keys(defs).length ? { ...root, $defs: defs } : root;
    const selfRef = JSON.stringify(schema).includes(`"${DEFS}${dto.name}"`);
    const result = selfRef ? { ...schema, $defs: { ...(schema.$defs as object), [dto.name]: root } } : schema;
    this.cache.set(dto, result);
    return result;
  }

  private definition(dto: Type<unknown>): JsonSchema {
    const base = this.definitions[dto.name] ?? { type: 'object', properties: {} };
    return this.withSwagger(base, dto);
  }

  /** Adds @ApiProperty documentation, and properties only swagger knows about. */
  private withSwagger(schema: JsonSchema, dto: Type<unknown> | undefined): JsonSchema {
    if (!dto) return schema;
    const names = (Reflect.getMetadata(SWAGGER_PROPS_ARRAY, dto.prototype) ?? []) as string[];
    if (!names.length) return schema;
    const properties = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
    const required = new Set((schema.required ?? []) as string[]);
    for (const raw of names) {
      const name = raw.replace(/^:/, '');
      const meta = (Reflect.getMetadata(SWAGGER_PROPS, dto.prototype, name) ?? {}) as Record<string, unknown>;
      const known = properties[name];
      const prop: JsonSchema = known ? { ...known } : this.fromSwaggerType(meta, dto, name);
      for (const field of SWAGGER_DOC_FIELDS) {
        if (meta[field] === undefined || (known && field === 'format' && known.format)) continue;
        if (field === 'example') prop.examples = [meta.example];
        else prop[field] = meta[field];
      }
      if (!known && meta.required !== false) required.add(name);
      properties[name] = prop;
    }
    return { ...schema, type: 'object', properties, ...(required.size ? { required: [...required] } : {}) };
  }

  private fromSwaggerType(meta: Record<string, unknown>, dto: Type<unknown>, name: string): JsonSchema {
    if (Array.isArray(meta.enum)) return { enum: meta.enum };
    const declared = typeof meta.type === 'function' ? meta.type : Reflect.getMetadata('design:type', dto.prototype, name);
    const primitive = DtoSchemaFactory.primitive(declared);
    if (typeof meta.type === 'string') return { type: meta.type };
    if (primitive) return meta.isArray ? { type: 'array', items: primitive } : primitive;
    return { type: 'object' };
  }

  private refsOf(schema: JsonSchema): string[] {
    const refs: string[] = [];
    JSON.stringify(schema, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS)) refs.push(value.slice(DEFS.length));
      return value;
    });
    return refs;
  }

  private classNamed(name: string): Type<unknown> | undefined {
    const metas = getMetadataStorage() as unknown as { validationMetadatas: Map<Type<unknown>, unknown> };
    for (const target of metas.validationMetadatas.keys()) if (target.name === name) return target;
    return undefined;
  }
}
