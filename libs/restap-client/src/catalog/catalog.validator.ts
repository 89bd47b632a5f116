import type { RestapCatalog } from '../interfaces/catalog.interface';

/** Result of {@link validateCatalog}: the typed catalog when the shape holds, and what is wrong otherwise. */
export interface CatalogValidation {
  catalog?: RestapCatalog;
  problems: string[];
}

/**
 * Checks the parts of the catalog a client depends on: `restap_version`, `agent.name` and
 * `capabilities[]` with `id`, `method`, `endpoint`. Extra fields are allowed (the spec keeps
 * packages and protocols open), and it is deliberately looser than the spec's catalog schema
 * (`RESTAP_CATALOG_SCHEMA`, in ../wire): a client can still work with a capability that has no
 * `title` or a lower-case `method`. The checker's shape rules take their shapes from that schema
 * (see catalog.shape.ts).
 */
export function validateCatalog(value: unknown): CatalogValidation {
  const problems: string[] = [];
  if (!isRecord(value)) return { problems: ['the catalog is not a JSON object'] };
  if (typeof value.restap_version !== 'string') problems.push('restap_version must be a string');
  if (!isRecord(value.agent)) problems.push('agent must be an object');
  else if (typeof value.agent.name !== 'string' || value.agent.name === '') problems.push('agent.name must be a non-empty string');
  if (!Array.isArray(value.capabilities)) {
    problems.push('capabilities must be an array');
  } else {
    value.capabilities.forEach((capability: unknown, index: number) => {
      if (!isRecord(capability)) return problems.push(`capabilities[${index}] must be an object`);
      for (const field of ['id', 'method', 'endpoint'] as const) {
        if (typeof capability[field] !== 'string' || capability[field] === '') {
          problems.push(`capabilities[${index}].${field} must be a non-empty string`);
        }
      }
      return undefined;
    });
  }
  return problems.length === 0 ? { catalog: value as RestapCatalog, problems } : { problems };
}

/** Narrowing helper shared by the validators. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
