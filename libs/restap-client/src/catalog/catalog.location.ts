import { RestapError } from '../errors/restap.error';
import { CATALOG_PATH } from '../restap.constants';

/** Where an agent lives and where its catalog is. */
export interface CatalogLocation {
  /** Base URL ending with `/`; relative endpoints resolve under it. */
  baseUrl: string;
  catalogUrl: string;
}

/**
 * Accepts the agent's base URL (`https://agent.example`, `https://host/prefix`) or the catalog URL
 * itself, so users can paste either.
 */
export function locateCatalog(input: string): CatalogLocation {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new RestapError('invalid_input', `"${input}" is not an absolute URL (expected e.g. http://localhost:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RestapError('invalid_input', `"${input}" is not an http(s) URL`);
  }
  url.search = '';
  url.hash = '';
  if (url.pathname.endsWith(CATALOG_PATH)) {
    const catalogUrl = url.toString();
    url.pathname = url.pathname.slice(0, -CATALOG_PATH.length) + '/';
    return { baseUrl: url.toString(), catalogUrl };
  }
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return { baseUrl: url.toString(), catalogUrl: new URL(CATALOG_PATH.slice(1), url).toString() };
}
