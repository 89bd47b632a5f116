import { CATALOG_PATH } from '../../../restap.constants';
import type { RestapRoutePaths } from '../../../core/registry/restap.registry';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';

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

/** How the host's router compares paths (Express's `case sensitive routing` and `strict routing`). */
export interface HostRouting {
  caseSensitive: boolean;
  strict: boolean;
}

/** Express's defaults: `/TALK` and `/talk/` reach the `/talk` route. */
export const EXPRESS_DEFAULT_ROUTING: HostRouting = { caseSensitive: false, strict: false };

/**
 * The routing settings the Express app's router really uses. Its router is created once, with the
 * app's settings of that moment, and keeps them as `caseSensitive` / `strict`; read those, and the
 * app's settings only when there is no router to ask.
 */
export function hostRoutingOf(app: unknown): HostRouting {
  const express = app as { router?: { caseSensitive?: unknown; strict?: unknown }; enabled?: (setting: string) => boolean } | undefined;
  const router = express?.router;
  return {
    caseSensitive: Boolean(router?.caseSensitive ?? express?.enabled?.('case sensitive routing')),
    strict: Boolean(router?.strict ?? express?.enabled?.('strict routing')),
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface CompiledRoute {
  exact: RegExp;
  below: RegExp;
  /** The two answers for this route, made once: a match is read, never changed. */
  atPath: Readonly<RouteMatch>;
  belowPath: Readonly<RouteMatch>;
}

/**
 * Tells which module endpoint a request path addresses, comparing paths exactly as the host's
 * Express router does (router 2 / path-to-regexp 8: the regexp `^(?:<path>)(?:/$)?$`, flag `i`
 * unless case-sensitive, no optional slash when strict). Whatever the router sends to a RESTAP
 * handler therefore also passes through the module's front door (body parser, limits, CORS,
 * drain, rate limit): `/TALK` and `/News/` get exactly what `/talk` and `/news` get.
 */
export class RestapPathMatcher {
  private readonly routes: CompiledRoute[];

  constructor(paths: RestapRoutePaths, options: ResolvedRestapCoreOptions, routing: HostRouting = EXPRESS_DEFAULT_ROUTING) {
    const flags = routing.caseSensitive ? '' : 'i';
    const candidates: Array<[RestapRoute, string | undefined]> = [
      ['catalog', CATALOG_PATH],
      ['talk', options.talk.enabled ? paths.talk : undefined],
      ['news', options.news.enabled ? paths.news : undefined],
    ];
    this.routes = candidates
      .filter((c): c is [RestapRoute, string] => Boolean(c[1]))
      .map(([route, path]) => {
        const base = escapeRegExp(path.length > 1 ? path.replace(/\/+$/, '') : path);
        return {
          exact: new RegExp(`^(?:${base})${routing.strict ? '' : '(?:/)?'}$`, flags),
          below: new RegExp(`^(?:${base})/`, flags),
          atPath: Object.freeze({ route, subpath: false }),
          belowPath: Object.freeze({ route, subpath: true }),
        };
      });
  }

  /** The endpoint `path` (Express's `req.path`, without the query) addresses, if any. */
  match(path: string): Readonly<RouteMatch> | undefined {
    for (const { exact, below, atPath, belowPath } of this.routes) {
      if (exact.test(path)) return atPath;
      if (below.test(path)) return belowPath;
    }
    return undefined;
  }
}

/**
 * Which enabled module endpoint `path` addresses under `routing` (Express's defaults unless
 * given). Builds a matcher each call: for tests and one-off checks; request paths keep one.
 */
export function matchRestapRoute(path: string, paths: RestapRoutePaths, options: ResolvedRestapCoreOptions, routing?: HostRouting): RouteMatch | undefined {
  return new RestapPathMatcher(paths, options, routing).match(path);
}
