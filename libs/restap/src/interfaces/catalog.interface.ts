/** Wire types of the discovery document (spec, "The Catalog Document"). */

export type JsonSchema = { [key: string]: unknown };

export interface RestapPackage {
  name: string;
  type: string;
  [extra: string]: unknown;
}

export interface RestapProtocol {
  available: boolean;
  endpoint?: string;
}

export type RestapProtocols = Record<string, RestapProtocol>;

export interface CapabilityParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

export interface CatalogCapability {
  id: string;
  title: string;
  method: string;
  endpoint: string;
  description?: string;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema;
  parameters?: CapabilityParameter[];
  content_types?: string[];
  output_formats?: string[];
  streaming?: { supported: boolean; transport?: 'sse'; events?: string[] };
  sessions?: { supported: boolean; required?: boolean };
  [extra: string]: unknown;
}

export interface RestapCatalog {
  restap_version: string;
  agent: { name: string; description?: string; contact?: string; [extra: string]: unknown };
  capabilities: CatalogCapability[];
  packages?: RestapPackage[];
  protocols?: RestapProtocols;
}
