import type { CatalogCapability, RestapCatalog } from '../interfaces/catalog.interface';
import {
  CONTENT_TYPE_SSE,
  DEFAULT_NEWS_PATH,
  NEWS_CAPABILITY_ID,
  NEWS_RECEIVE_CAPABILITY_ID,
  TALK_CAPABILITY_ID,
} from '../restap.constants';
import { isRecord } from './catalog.validator';

/*
 * Lookups shared by the client and the conformance checker. They are defensive at runtime because
 * the checker also runs them on catalogs that failed validation.
 */

function capabilitiesOf(catalog: RestapCatalog | undefined): CatalogCapability[] {
  const list: unknown = catalog?.capabilities;
  return Array.isArray(list) ? list.filter((c): c is CatalogCapability => isRecord(c) && typeof c.id === 'string') : [];
}

function hasMethod(capability: CatalogCapability, method: string): boolean {
  return typeof capability.method === 'string' && capability.method.toUpperCase() === method;
}

function pathOf(capability: CatalogCapability): string {
  return typeof capability.endpoint === 'string' ? capability.endpoint.replace(/[?#].*$/, '') : '';
}

/** The talk capability: id `talk`. */
export function findTalk(catalog: RestapCatalog | undefined): CatalogCapability | undefined {
  return capabilitiesOf(catalog).find((c) => c.id === TALK_CAPABILITY_ID);
}

/** GET news: id `news`, else a GET capability whose path ends in `/news`. */
export function findNewsRead(catalog: RestapCatalog | undefined): CatalogCapability | undefined {
  const all = capabilitiesOf(catalog);
  return (
    all.find((c) => c.id === NEWS_CAPABILITY_ID && hasMethod(c, 'GET')) ??
    all.find((c) => hasMethod(c, 'GET') && pathOf(c).endsWith(DEFAULT_NEWS_PATH))
  );
}

/** POST news: id `news_receive`, else a POST capability on the same path as GET news. */
export function findNewsWrite(catalog: RestapCatalog | undefined): CatalogCapability | undefined {
  const all = capabilitiesOf(catalog);
  const read = findNewsRead(catalog);
  return (
    all.find((c) => c.id === NEWS_RECEIVE_CAPABILITY_ID && hasMethod(c, 'POST')) ??
    all.find((c) => hasMethod(c, 'POST') && (read ? pathOf(c) === pathOf(read) : pathOf(c).endsWith(DEFAULT_NEWS_PATH)))
  );
}

/** Streaming is advertised by `streaming.supported` or by `text/event-stream` in `output_formats`. */
export function streamingAdvertised(capability: CatalogCapability | undefined): boolean {
  if (!capability) return false;
  if (isRecord(capability.streaming) && capability.streaming.supported === true) return true;
  return Array.isArray(capability.output_formats) && capability.output_formats.includes(CONTENT_TYPE_SSE);
}

/** `sessions.supported === true`. */
export function sessionsAdvertised(capability: CatalogCapability | undefined): boolean {
  return isRecord(capability?.sessions) && capability.sessions.supported === true;
}

/**
 * Longest `wait` (seconds) GET news accepts, from the `wait` query parameter its catalog entry
 * lists (its schema's `maximum`, else 30); undefined when the agent does not offer long-polling.
 */
export function newsWaitSeconds(capability: CatalogCapability | undefined): number | undefined {
  const params = Array.isArray(capability?.parameters) ? (capability.parameters as unknown[]) : [];
  const wait = params.find((p) => isRecord(p) && p.name === 'wait' && p.in === 'query');
  if (!isRecord(wait)) return undefined;
  const max = isRecord(wait.schema) ? wait.schema.maximum : undefined;
  return typeof max === 'number' && Number.isInteger(max) && max >= 1 ? max : 30;
}

/** `sessions.required === true`: the endpoint rejects requests without a session_id. */
export function sessionRequired(capability: CatalogCapability | undefined): boolean {
  return isRecord(capability?.sessions) && capability.sessions.required === true;
}
