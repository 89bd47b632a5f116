/** Wire types of the discovery document: defined once for the module and the client (see `../wire`). */
export type {
  JsonSchema,
  CapabilityParameter,
  CatalogStreaming,
  CatalogSessions,
  CatalogCapability,
  CatalogPackage,
  CatalogProtocol,
  CatalogAgent,
  RestapCatalog,
} from '../wire/catalog';
