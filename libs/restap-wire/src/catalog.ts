/** Wire types of the discovery document (spec, "The Catalog Document"); fields stay snake_case. */

/** A JSON Schema object as found in `input_schema` / `output_schema`. */
export type JsonSchema = { [keyword: string]: unknown };

/** A path or query parameter of a capability's route. */
export interface CapabilityParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

/** `streaming` of the talk capability. */
export interface CatalogStreaming {
  supported: boolean;
  /** 'sse' from every server the spec knows; kept open for what a server may send. */
  transport?: 'sse' | (string & {});
  events?: string[];
}

/** `sessions` of talk (continuity) and of news / news_receive (`required` = session-scoped news). */
export interface CatalogSessions {
  supported: boolean;
  required?: boolean;
}

/** One capability: an operation mapped to a concrete HTTP endpoint (the spec lists every field as optional but these four). */
export interface CatalogCapability {
  id: string;
  title?: string;
  method: string;
  endpoint: string;
  description?: string;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema;
  parameters?: CapabilityParameter[];
  content_types?: string[];
  output_formats?: string[];
  streaming?: CatalogStreaming;
  sessions?: CatalogSessions;
  [extra: string]: unknown;
}

/** An advertised package (spec, "Optional Packages"); only name and type are required. */
export interface CatalogPackage {
  name: string;
  type: string;
  [extra: string]: unknown;
}

/** One entry of the top-level `protocols` object. */
export interface CatalogProtocol {
  available: boolean;
  endpoint?: string;
}

/** Who the agent is. */
export interface CatalogAgent {
  name: string;
  description?: string;
  contact?: string;
  [extra: string]: unknown;
}

/** The document served at `/.well-known/restap.json`. */
export interface RestapCatalog {
  restap_version: string;
  agent: CatalogAgent;
  capabilities: CatalogCapability[];
  packages?: CatalogPackage[];
  protocols?: Record<string, CatalogProtocol>;
  [extra: string]: unknown;
}
