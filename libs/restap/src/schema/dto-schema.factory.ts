import type { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import type { JsonSchema } from '../interfaces/catalog.interface';
import { enumSchema, restapConverters } from './class-validator.converters';

// class-transformer keeps @Type() metadata in a storage it exports only from this deep path.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage.js') as typeof import('class-transformer/types/storage');

const DEFS = '#/$defs/';
/** Metadata keys written by @nestjs/swagger's @ApiProperty (read, never required). */
const SWAGGER_PROPS = 'swagger/apiModelProperties';
const SWAGGER_PROPS_ARRAY = 'swagger/apiModelPropertiesArray';
/** The static method the @nestjs/swagger CLI plugin adds to each DTO class it compiles. */
const SWAGGER_PLUGIN_FACTORY = '_OPENAPI_METADATA_FACTORY';
/** @ApiProperty fields that describe rather than constrain; merged into the derived schema. */
const SWAGGER_DOC_FIELDS = ['description', 'example', 'examples', 'default', 'title', 'deprecated', 'format'] as const;
/** Keywords that already say what a property is, so `design:type` must not add a `type`. */
const SHAPE_KEYWORDS = ['type', '$ref', 'oneOf', 'anyOf', 'allOf', 'enum', 'const'];

const PRIMITIVES = new Map<unknown, JsonSchema>([
  [String, { type: 'string' }], [Number, { type: 'number' }], [Boolean, { type: 'boolean' }],
  [Date, { type: 'string', format: 'date-time' }], [Array, { type: 'array' }], [Object, { type: 'object' }],
]);

/**
 * Derives JSON Schemas from DTO classes: class-validator decorators give types and constraints
 * (through class-validator-jsonschema, with the converters it gets wrong replaced), @ApiProperty
 * adds descriptions and examples. Nested DTOs are referenced under `$defs` so each schema is
 * self-contained. Built once, at bootstrap.
 *
 * @example
 * new DtoSchemaFactory().create(TextDto) // { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
 */
export class DtoSchemaFactory {
  private readonly cache = new Map<Type<unknown>, JsonSchema>();
  private readonly names = new Map<Type<unknown>, string>();
  private readonly classes = new Map<string, Type<unknown>>();
  private readonly options = {
    refPointerPrefix: DEFS,
    classTransformerMetadataStorage: defaultMetadataStorage,
    classValidatorMetadataStorage: getMetadataStorage(),
    additionalConverters: restapConverters((type) => this.refName(type), DEFS),
  };

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
    const root = this.classSchema(dto);
    const defs: Record<string, JsonSchema> = {};
    const pending = [...this.refsOf(root)];
    while (pending.length) {
      const name = pending.pop() as string;
      if (defs[name]) continue;
      const type = this.classes.get(name) as Type<unknown>;
      defs[name] = type === dto ? root : this.classSchema(type);
      pending.push(...this.refsOf(defs[name]));
    }
    const result = Object.keys(defs).length ? { ...root, $defs: defs } : root;
    this.cache.set(dto, result);
    return result;
  }

  /** The `$defs` key of a class: its name, suffixed when another class already has that name. */
  private refName(type: Type<unknown>): string {
    let name = this.names.get(type);
    if (!name) {
      name = type.name || 'Anonymous';
      for (let i = 2; this.classes.has(name); i++) name = `${type.name || 'Anonymous'}_${i}`;
      this.names.set(type, name);
      this.classes.set(name, type);
    }
    return name;
  }

  private classSchema(dto: Type<unknown>): JsonSchema {
    this.refName(dto);
    const derived = targetConstructorToSchema(dto, this.options) as JsonSchema;
    const base = derived.properties ? derived : { type: 'object', properties: {} };
    return this.withSwagger(this.withDesignTypes(base, dto), dto);
  }

  /** A property whose decorators fix no type (e.g. only @Min or @IsOptional) gets its declared one. */
  private withDesignTypes(schema: JsonSchema, dto: Type<unknown>): JsonSchema {
    const properties = { ...(schema.properties as Record<string, JsonSchema>) };
    for (const [name, prop] of Object.entries(properties)) {
      if (SHAPE_KEYWORDS.some((k) => k in prop)) continue;
      const declared = DtoSchemaFactory.primitive(Reflect.getMetadata('design:type', dto.prototype, name));
      if (declared && declared.type !== 'object') properties[name] = { ...declared, ...prop };
    }
    return { ...schema, properties };
  }

  /** Adds @ApiProperty documentation, and properties only swagger knows about. */
  private withSwagger(schema: JsonSchema, dto: Type<unknown>): JsonSchema {
    const metas = swaggerPropertiesOf(dto);
    if (!metas.size) return schema;
    const properties = { ...((schema.properties ?? {}) as Record<string, JsonSchema>) };
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, meta] of metas) {
      const known = properties[name];
      const prop: JsonSchema = known ? { ...known } : this.fromSwaggerType(meta, dto, name);
      for (const field of SWAGGER_DOC_FIELDS) {
        if (meta[field] === undefined || (known && field === 'format' && known.format)) continue;
        if (field === 'example') prop.examples = [meta.example];
        else if (field === 'examples') prop.examples = Array.isArray(meta.examples) ? meta.examples : exampleValues(meta.examples);
        else prop[field] = meta[field];
      }
      if (!known && meta.required !== false) required.add(name);
      properties[name] = prop;
    }
    return { ...schema, type: 'object', properties, ...(required.size ? { required: [...required] } : {}) };
  }

  private fromSwaggerType(meta: Record<string, unknown>, dto: Type<unknown>, name: string): JsonSchema {
    if (Array.isArray(meta.enum)) return enumSchema(meta.enum);
    if (meta.type === 'array' && meta.items) return { type: 'array', items: meta.items };
    if (typeof meta.type === 'string') return { type: meta.type };
    let declared = typeof meta.type === 'function' ? meta.type : Reflect.getMetadata('design:type', dto.prototype, name);
    // `type: () => Dto` (lazy, for circular imports) is an arrow function: no prototype.
    if (typeof declared === 'function' && !declared.prototype) declared = (declared as () => unknown)();
    // The CLI plugin writes an array property's type as `() => [Item]`.
    let isArray = meta.isArray === true;
    if (Array.isArray(declared)) [declared, isArray] = [declared[0], true];
    const item = DtoSchemaFactory.primitive(declared) ??
      (typeof declared === 'function' && declared !== Array ? { $ref: DEFS + this.refName(declared as Type<unknown>) } : { type: 'object' });
    return isArray ? { type: 'array', items: item } : item;
  }

  private refsOf(schema: JsonSchema): string[] {
    const refs: string[] = [];
    JSON.stringify(schema, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS)) refs.push(value.slice(DEFS.length));
      return value;
    });
    return refs;
  }
}

/**
 * What @nestjs/swagger knows of a DTO's properties: what its CLI plugin generated (a static
 * `_OPENAPI_METADATA_FACTORY` per class, read along the class chain, as swagger itself reads it)
 * overlaid with explicit @ApiProperty() metadata, which wins.
 */
function swaggerPropertiesOf(dto: Type<unknown>): Map<string, Record<string, unknown>> {
  const metas = new Map<string, Record<string, unknown>>();
  const chain: Array<Type<unknown>> = [];
  for (let c: unknown = dto; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.unshift(c as Type<unknown>);
  for (const type of chain) {
    if (!Object.prototype.hasOwnProperty.call(type, SWAGGER_PLUGIN_FACTORY)) continue;
    const generated = (type as unknown as Record<string, () => unknown>)[SWAGGER_PLUGIN_FACTORY]();
    for (const [name, meta] of Object.entries((generated ?? {}) as Record<string, Record<string, unknown>>)) metas.set(name, { ...meta });
  }
  for (const raw of (Reflect.getMetadata(SWAGGER_PROPS_ARRAY, dto.prototype) ?? []) as string[]) {
    const name = raw.replace(/^:/, '');
    metas.set(name, { ...metas.get(name), ...((Reflect.getMetadata(SWAGGER_PROPS, dto.prototype, name) ?? {}) as Record<string, unknown>) });
  }
  return metas;
}

/** OpenAPI `examples` is a map of `{ value }` objects; JSON Schema's is an array of values. */
function exampleValues(examples: unknown): unknown[] {
  return Object.values(examples as Record<string, unknown>).map((e) =>
    e && typeof e === 'object' && 'value' in e ? (e as { value: unknown }).value : e);
}
