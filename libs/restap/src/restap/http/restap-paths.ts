import { CATALOG_PATH } from '../../restap.constants';
import type { RestapRoutePaths } from '../../core/registry/restap.registry';
import type { ResolvedRestapOptions } from '../../interfaces/restap-options.interface';

/** One of the module's own endpoints. */
export type RestapRoute = 'catalog' | 'talk' | 'news';

/** Where a request path falls among the module's endpoints. */
export interface RouteMatch {
  route: RestapRoute;
  /** True for a path below the endpoint (`/talk/extra`), which the module does not serve. */
  subpath: boolean;
}

/** Methods each endpoint serves, as written in `Allow`. */
export const ALLOWED_METHODS: Readonly<Record<RestapRoute, readonly string[]>> = {
  catalog: ['GET', 'HEAD'],
  talk: ['POST'],
  news: ['GET', 'HEAD', 'POST'],
};

/**
 * Which enabled module endpoint `path` (Express's `req.path`, without the query) addresses, if
 * any. A trailing slash is the endpoint itself, as Express routes it.
 */
export function matchRestapRoute(path: string, paths: RestapRoutePaths, options: ResolvedRestapOptions): RouteMatch | undefined {
  const candidates: Array<[RestapRoute, string | undefined]> = [
    ['catalog', CATALOG_PATH],
    ['talk', options.talk.enabled ? paths.talk : undefined],
    ['news', options.news.enabled ? paths.news : undefined],
  ];
  const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  for (const [route, base] of candidates) {
    if (!base) continue;
    if (normalized === base) return { route, subpath: false };
    if (normalized.startsWith(`${base}/`)) return { route, subpath: true };
  }
  return undefined;
}
