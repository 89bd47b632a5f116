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
  /** nestjs-restap extension on the talk capability: its SSE streams can be resumed (see {@link CatalogTalkResume}). */
  'x-restap-resume'?: CatalogTalkResume;
  [extra: string]: unknown;
}

/**
 * Resumable /talk streams (a nestjs-restap extension; plain RESTAP clients ignore it): every frame
 * has an `id:`; `GET` on `endpoint` (with `{message_id}` from message.start), the session_id in
 * `Restap-Session-Id` and `Last-Event-ID` replays what followed, then follows the turn to `done`.
 */
export interface CatalogTalkResume {
  method: 'GET';
  /** URL template, e.g. `/talk/{message_id}`. */
  endpoint: string;
  /** What a client disconnecting does to its turn: `continues` (it finishes and is stored). */
  on_disconnect: 'continues';
  /** Seconds a finished turn stays resumable. */
  grace_seconds: number;
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
