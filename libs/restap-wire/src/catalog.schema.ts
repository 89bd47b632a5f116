/**
 * JSON Schema (draft 2020-12) of the RESTAP discovery document, from the spec's sections
 * "The Catalog Document", "Capability Fields", "Top-Level protocols Field" and "Optional Packages".
 * Written once: nestjs-restap exports it, restap-client's conformance checker judges catalogs by
 * its parts, and the playground checks the catalog it shows against it (through a generated copy,
 * see scripts/playground-assets.ts).
 */
export const RESTAP_CATALOG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://restap.dev/schemas/catalog-0.1.4.json',
  title: 'RESTAP catalog',
  type: 'object',
  required: ['restap_version', 'agent', 'capabilities'],
  properties: {
    restap_version: { type: 'string', minLength: 1 },
    agent: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        description: { type: 'string' },
        contact: { type: 'string' },
      },
    },
    capabilities: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'method', 'endpoint'],
        properties: {
          id: { type: 'string', minLength: 1 },
          title: { type: 'string', minLength: 1 },
          method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
          endpoint: { type: 'string', pattern: '^/' },
          description: { type: 'string' },
          input_schema: { type: 'object' },
          output_schema: { type: 'object' },
          parameters: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'in', 'required', 'schema'],
              properties: {
                name: { type: 'string' },
                in: { enum: ['path', 'query'] },
                required: { type: 'boolean' },
                schema: { type: 'object' },
                description: { type: 'string' },
              },
            },
          },
          content_types: { type: 'array', items: { type: 'string' } },
          output_formats: { type: 'array', items: { type: 'string' } },
          streaming: {
            type: 'object',
            required: ['supported'],
            properties: {
              supported: { type: 'boolean' },
              transport: { const: 'sse' },
              events: { type: 'array', items: { type: 'string' } },
            },
          },
          sessions: {
            type: 'object',
            required: ['supported'],
            properties: { supported: { type: 'boolean' }, required: { type: 'boolean' } },
          },
        },
      },
    },
    packages: {
      type: 'array',
      items: { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string' } } },
    },
    protocols: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['available'],
        properties: { available: { type: 'boolean' }, endpoint: { type: 'string' } },
      },
    },
  },
} as const;
