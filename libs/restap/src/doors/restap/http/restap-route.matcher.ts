import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { RESTAP_OPTIONS } from '../../../restap.constants';
import { RestapRegistry } from '../../../core/registry/restap.registry';
import type { ResolvedRestapCoreOptions } from '../../../interfaces/restap-options.interface';
import { hostRoutingOf, RestapPathMatcher, type RouteMatch } from './restap-paths';

/**
 * The module's paths as the host's router sees them, for the front door and the route fallback.
 * Built at the first request: by then the explorer has recorded where /talk and /news are served
 * and the Express router exists with the settings it routes by.
 */
@Injectable()
export class RestapRouteMatcher {
  private matcher?: RestapPathMatcher;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly registry: RestapRegistry,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
  ) {}

  /** The endpoint `path` (Express's `req.path`) addresses, if any. */
  match(path: string): Readonly<RouteMatch> | undefined {
    this.matcher ??= new RestapPathMatcher(this.registry.paths, this.options, hostRoutingOf(this.adapterHost.httpAdapter?.getInstance()));
    return this.matcher.match(path);
  }
}
