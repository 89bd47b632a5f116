import { RESTAP_DATA_SOURCE } from './persistence/restap-data-source';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RESTAP_OPTIONS } from './restap.constants';
import { RESTAP_ASYNC_OPTIONS_TYPE, RESTAP_MODULE_OPTIONS, RESTAP_OPTIONS_TYPE, RestapConfigurableModule } from './restap.module-definition';
import { resolveOptions } from './restap-options.resolver';
import { RestapBootstrapError } from './exceptions/restap-bootstrap.error';
import { CatalogRoute } from './doors/restap/catalog/catalog.route';
import { CatalogService } from './doors/restap/catalog/catalog.service';
import { RestapExplorer } from './core/registry/restap.explorer';
import { RestapMetadataAccessor } from './core/registry/restap-metadata.accessor';
import { RestapRegistry } from './core/registry/restap.registry';
import { DoorKit } from './doors/kit/door-kit';
import { ValidationCheck } from './core/registry/validation.check';
import { OAUTH_RESOURCE, type OAuthGate } from './doors/kit/auth/oauth-gate';
import type * as OAuthResourceModule from './doors/kit/auth/oauth-resource';
import { ProtectedResourceRoute } from './doors/kit/auth/protected-resource.route';
import { CapabilityOAuthGuard } from './doors/kit/auth/capability-oauth.guard';
import { APP_GUARD } from '@nestjs/core';
import { RestapCors } from './doors/restap/http/restap-cors';
import { RestapFrontDoor } from './doors/restap/http/restap-front-door';
import { RestapRouteFallback } from './doors/restap/http/restap-route.fallback';
import { RestapDrain } from './core/lifecycle/restap-drain.service';
import { RestapReplicas } from './core/lifecycle/restap-replicas.service';
import { RESTAP_THROTTLER_STORAGE, RestapRateLimit } from './doors/kit/rate-limit/restap-rate-limit';
import { RestapRouteMatcher } from './doors/restap/http/restap-route.matcher';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource } from 'typeorm';
import { SharedThrottlerStorage } from './doors/kit/rate-limit/restap-rate-limit.storage';
import type { OptionalDoor, ResolvedRestapCoreOptions, RestapModuleExtras } from './interfaces/restap-options.interface';
import type { RestapModuleOptions, ResolvedRestapOptions } from './restap-options';
import { createRestapControllers } from './doors/restap/restap.controllers';
import { StorageCheck } from './persistence/storage.check';
import { RESTAP_SESSION_STORE } from './persistence/session.store';
import { TypeOrmSessionStore } from './persistence/typeorm-session.store';
import { TalkBootstrap } from './core/talk/talk.bootstrap';
import { TalkService } from './core/talk/talk.service';
import { TalkResponder } from './doors/restap/talk/talk.responder';
import { NewsStore } from './persistence/news.store';
import { TypeOrmNewsStore } from './persistence/typeorm-news.store';
import { RestapSql } from './persistence/restap-sql';
import { NewsDispatcher } from './core/news/news.dispatcher';
import { NewsService } from './core/news/news.service';
import { NewsWaits } from './core/news/news-waits';
import { NewsWakeups } from './core/news/news-wakeups';
import { DoorGuards } from './doors/kit/guards/door-guards';
import { DoorStreams } from './doors/kit/http/door-streams';
import { RESTAP_TALK_NEWS_SOURCE } from './core/talk/talk-news.source';
import { CapabilityInvoker } from './core/invoker/capability-invoker';
import { CapabilityTools } from './core/tools/capability-tools';
import { CapabilityTasks } from './core/tasks/capability-tasks';
import { CapabilityTaskWakeups } from './core/tasks/capability-task.wakeups';
import { CapabilityTaskStore } from './persistence/capability-task.store';
import { TALK_RESUME_PROVIDERS } from './doors/restap/talk/resume';
import { ApprovalService } from './core/approvals/approval.service';
import { RESTAP_APPROVAL_STORE } from './persistence/approval.store';
import { TypeOrmApprovalStore } from './persistence/typeorm-approval.store';

/** Which doors were loaded (see `withDoors`), for the options' check. */
const RESTAP_LOADED_DOORS = Symbol('RESTAP_LOADED_DOORS');

const ALL_DOORS: readonly OptionalDoor[] = ['mcp', 'a2a', 'playground', 'agui'];

/**
 * Each optional door's Nest module, `require`d only when the door may open: a host without MCP or
 * A2A or AG-UI never loads their SDKs (about 0.65 s of start-up, and their dependencies).
 */
const DOOR_MODULES: Readonly<Record<OptionalDoor, () => Type<unknown>>> = {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand, on purpose */
  mcp: () => (require('./doors/mcp/mcp-door.module') as typeof import('./doors/mcp/mcp-door.module')).McpDoorModule,
  a2a: () => (require('./doors/a2a/a2a-door.module') as typeof import('./doors/a2a/a2a-door.module')).A2aDoorModule,
  playground: () => (require('./doors/playground/playground-door.module') as typeof import('./doors/playground/playground-door.module')).PlaygroundDoorModule,
  agui: () => (require('./doors/agui/agui-door.module') as typeof import('./doors/agui/agui-door.module')).AguiDoorModule,
  /* eslint-enable @typescript-eslint/no-require-imports */
};

/** Where the rate limit counts: Redis or PostgreSQL shared by the replicas, the host's own store, or memory. */
/** The OAuth resource with auth.oauth, else null; its module (jose, the MCP SDK's auth helpers) is loaded only then. */
function oauthResourceOf(options: ResolvedRestapCoreOptions, registry: RestapRegistry): OAuthGate | null {
  if (!options.auth.oauth) return null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand, on purpose
  const { OAuthResource } = require('./doors/kit/auth/oauth-resource') as typeof OAuthResourceModule;
  return new OAuthResource(options, registry);
}

function throttlerStorageOf(options: ResolvedRestapCoreOptions, dataSource?: DataSource): ThrottlerStorage {
  const { rateLimit, agent } = options;
  if (rateLimit && rateLimit.redis) return new SharedThrottlerStorage({ redis: rateLimit.redis }, agent.name);
  if (rateLimit && rateLimit.postgres) {
    if (!dataSource) throw new RestapBootstrapError('RestapModule option rateLimit.postgres needs the TypeORM DataSource (TypeOrmModule.forRoot).');
    return new SharedThrottlerStorage({ postgres: dataSource }, agent.name);
  }
  return (rateLimit && rateLimit.storage) || new ThrottlerStorageService();
}

/**
 * Turns a Nest application into a RESTAP agent: the discovery catalog, /talk and /news, with
 * sessions and news stored through the host's TypeORM DataSource.
 *
 * @example
 * imports: [
 *   TypeOrmModule.forRoot({ type: 'postgres', url, autoLoadEntities: true, migrations: RESTAP_MIGRATIONS, migrationsRun: true }),
 *   RestapModule.forRoot({ agent: { name: 'Text Analysis Agent' } }),
 * ]
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: RESTAP_OPTIONS, useFactory: resolveLoadedOptions, inject: [RESTAP_MODULE_OPTIONS, RESTAP_LOADED_DOORS] },
    RestapMetadataAccessor,
    RestapRegistry,
    RestapExplorer,
    ValidationCheck,
    RestapCors,
    RestapDrain,
    // Only with auth.oauth: without it the kit's bearerAuth() step is left out of every pipeline.
    { provide: OAUTH_RESOURCE, useFactory: oauthResourceOf, inject: [RESTAP_OPTIONS, RestapRegistry] },
    ProtectedResourceRoute,
    DoorKit,
    RestapReplicas,
    RestapRateLimit,
    RestapRouteMatcher,
    RestapFrontDoor,
    RestapRouteFallback,
    { provide: RESTAP_THROTTLER_STORAGE, useFactory: throttlerStorageOf, inject: [RESTAP_OPTIONS, { token: RESTAP_DATA_SOURCE, optional: true }] },
    StorageCheck,
    CatalogService,
    CatalogRoute,
    RestapSql,
    { provide: RESTAP_SESSION_STORE, useClass: TypeOrmSessionStore },
    TalkService,
    TalkResponder,
    ...TALK_RESUME_PROVIDERS,
    TalkBootstrap,
    { provide: NewsStore, useClass: TypeOrmNewsStore },
    NewsDispatcher,
    NewsWakeups,
    NewsWaits,
    NewsService,
    { provide: RESTAP_TALK_NEWS_SOURCE, useExisting: NewsService },
    CapabilityInvoker,
    CapabilityTools,
    CapabilityTaskStore,
    CapabilityTaskWakeups,
    CapabilityTasks,
    { provide: RESTAP_APPROVAL_STORE, useClass: TypeOrmApprovalStore },
    ApprovalService,
    DoorGuards,
    DoorStreams,
  ],
  // The doors' modules (imported below, when they may open) use the core and the kit through these.
  exports: [CatalogService, RESTAP_OPTIONS, NewsService, NewsWakeups, RestapRegistry, TalkService, CapabilityInvoker, CapabilityTools, DoorKit, OAUTH_RESOURCE, RestapSql, RestapReplicas, ApprovalService, CapabilityTasks],
})
export class RestapModule extends RestapConfigurableModule {
  static override forRoot(options: typeof RESTAP_OPTIONS_TYPE): DynamicModule {
    return withOAuthGuard(
      withDoors(withControllers(super.forRoot(options), options, Boolean(options.guards?.length)), ALL_DOORS.filter((door) => (options[door] as { enabled?: unknown } | undefined)?.enabled === true)),
      options.auth?.oauth !== undefined,
    );
  }

  static override forRootAsync(options: typeof RESTAP_ASYNC_OPTIONS_TYPE): DynamicModule {
    // The options come later: the guard is registered and passes everything at once unless auth.oauth is set.
    return withOAuthGuard(withDoors(withControllers(super.forRootAsync(options), options, true), options.doors ?? ALL_DOORS), true);
  }
}

/**
 * With OAuth, the capabilities' own routes check the bearer token and scopes too (a global guard
 * that acts only on `@Capability()` routes); `forRoot` without `auth.oauth` registers nothing.
 */
function withOAuthGuard(definition: DynamicModule, oauth: boolean): DynamicModule {
  if (!oauth) return definition;
  return { ...definition, providers: [...(definition.providers ?? []), CapabilityOAuthGuard, { provide: APP_GUARD, useExisting: CapabilityOAuthGuard }] };
}

/**
 * The /talk and /news controllers at the module's paths. `guarded`: with the guard that runs the
 * `guards` option; forRoot without `guards` leaves it off (it would pass every request), forRootAsync
 * keeps it (its guards come later).
 */
function withControllers(definition: DynamicModule, extras: RestapModuleExtras, guarded: boolean): DynamicModule {
  return { ...definition, controllers: createRestapControllers(extras, guarded) };
}

/** The module definition with the modules of `doors` imported, and the list of them for `resolveLoadedOptions`. */
function withDoors(definition: DynamicModule, doors: readonly OptionalDoor[]): DynamicModule {
  for (const door of doors) {
    if (!ALL_DOORS.includes(door)) throw new RestapBootstrapError(`RestapModule option doors lists ${JSON.stringify(door)}: the optional doors are ${ALL_DOORS.join(', ')}.`);
  }
  return {
    ...definition,
    imports: [...(definition.imports ?? []), ...doors.map((door) => DOOR_MODULES[door]())],
    providers: [...(definition.providers ?? []), { provide: RESTAP_LOADED_DOORS, useValue: doors }],
  };
}

/** The resolved options; a door they enable must have been loaded (forRootAsync's `doors`). */
function resolveLoadedOptions(options: RestapModuleOptions, loaded: readonly OptionalDoor[]): ResolvedRestapOptions {
  const resolved = resolveOptions(options);
  for (const door of ALL_DOORS) {
    if (resolved[door].enabled && !loaded.includes(door)) {
      throw new RestapBootstrapError(`RestapModule option ${door}.enabled is true, but forRootAsync's doors (${loaded.join(', ') || 'none'}) does not list '${door}': add it so the door's module is loaded.`);
    }
  }
  return resolved;
}
