/** Wire types of the discovery document: defined once for the module and the client (see `../wire`). */
import type { CatalogPackage, CatalogProtocol } from '../wire/catalog';

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

/** An advertised package (the `packages` option). */
export type RestapPackage = CatalogPackage;
/** One protocol of the `protocols` option. */
export type RestapProtocol = CatalogProtocol;
export type RestapProtocols = Record<string, CatalogProtocol>;
