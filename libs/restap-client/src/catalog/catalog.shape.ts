import { SchemaValidator } from '../capabilities/schema.validator';
import { RESTAP_CATALOG_SCHEMA } from '../wire/catalog.schema';

const { agent, capabilities, packages, protocols } = RESTAP_CATALOG_SCHEMA.properties;
const { streaming } = capabilities.items.properties;

/**
 * Parts of the spec's catalog schema (written once, in libs/restap-wire, for the module, this
 * client and the playground) that conformance rules judge one at a time, named by where they sit
 * in a catalog. A rule whose spec sentence is a shape takes it from here rather than restating it.
 */
const CATALOG_PARTS = {
  'agent.name': agent.properties.name,
  'streaming.supported': streaming.properties.supported,
  'streaming.transport': streaming.properties.transport,
  'packages[]': packages.items,
  'protocols.*': protocols.additionalProperties,
} as const;

/** A part of the catalog schema, by where it sits in a catalog. */
export type CatalogPart = keyof typeof CATALOG_PARTS;

let validator: SchemaValidator | undefined;

/**
 * Whether `value` is what the catalog schema allows at `part` (each part is compiled once).
 *
 * @example
 * fitsCatalogPart('protocols.*', { available: true, endpoint: '/mcp' }) // true
 */
export function fitsCatalogPart(part: CatalogPart, value: unknown): boolean {
  validator ??= new SchemaValidator();
  return validator.validate(`restap-catalog:${part}`, CATALOG_PARTS[part], value).length === 0;
}
