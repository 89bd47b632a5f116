import { RESTAP_DATA_SOURCE } from './persistence/restap-data-source';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { RESTAP_OPTIONS } from './restap.constants';
import { RESTAP_MODULE_OPTIONS, RestapConfigurableModule } from './restap.module-definition';
import { resolveOptions } from './restap-options.resolver';
import { RestapBootstrapError } from './exceptions/restap-bootstrap.error';
import { CatalogRoute } from './doors/restap/catalog/catalog.route';
import { CatalogService } from './doors/restap/catalog/catalog.service';
import { RestapExplorer } from './core/registry/restap.explorer';
import { RestapMetadataAccessor } from './core/registry/restap-metadata.accessor';
import { RestapRegistry } from './core/registry/restap.registry';
import { RestapBodyParser } from './doors/restap/http/restap-body.parser';
import { RestapCors } from './doors/restap/http/restap-cors';
import { RestapFrontDoor } from './doors/restap/http/restap-front-door';
import { RestapRouteFallback } from './doors/restap/http/restap-route.fallback';
import { RestapDrain } from './core/lifecycle/restap-drain.service';
import { RESTAP_THROTTLER_STORAGE, RestapRateLimit } from './doors/kit/rate-limit/restap-rate-limit';
import { RestapRouteMatcher } from './doors/restap/http/restap-route.matcher';
import { ThrottlerStorageService, type ThrottlerStorage } from '@nestjs/throttler';
import type { DataSource } from 'typeorm';
import { SharedThrottlerStorage } from './doors/kit/rate-limit/restap-rate-limit.storage';
import type { ResolvedRestapOptions } from './interfaces/restap-options.interface';
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
import { McpDoor } from './doors/mcp/mcp.door';
import { DoorGuards } from './doors/kit/guards/door-guards';
import { DoorStreams } from './doors/kit/http/door-streams';
import { McpNewsNotifier } from './doors/mcp/mcp-news.notifier';
import { McpLegacySessions } from './doors/mcp/mcp-legacy.sessions';
import { McpSessionStore } from './doors/mcp/mcp-session.store';
import { McpServerFactory } from './doors/mcp/mcp-server.factory';
import { RESTAP_TALK_NEWS_SOURCE } from './core/talk/talk-news.source';
import { CapabilityInvoker } from './core/invoker/capability-invoker';
import { CapabilityTools } from './core/tools/capability-tools';
import { PlaygroundDoor } from './doors/playground/playground.door';
import { A2A_PROVIDERS } from './doors/a2a';

/** Where the rate limit counts: Redis or PostgreSQL shared by the replicas, the host's own store, or memory. */
function throttlerStorageOf(options: ResolvedRestapOptions, dataSource?: DataSource): ThrottlerStorage {
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
    { provide: RESTAP_OPTIONS, useFactory: resolveOptions, inject: [RESTAP_MODULE_OPTIONS] },
    RestapMetadataAccessor,
    RestapRegistry,
    RestapExplorer,
    RestapCors,
    RestapDrain,
    RestapBodyParser,
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
    TalkBootstrap,
    { provide: NewsStore, useClass: TypeOrmNewsStore },
    NewsDispatcher,
    NewsWakeups,
    NewsWaits,
    NewsService,
    { provide: RESTAP_TALK_NEWS_SOURCE, useExisting: NewsService },
    CapabilityInvoker,
    CapabilityTools,
    PlaygroundDoor,
    ...A2A_PROVIDERS,
    McpNewsNotifier,
    McpLegacySessions,
    McpSessionStore,
    McpServerFactory,
    DoorGuards,
    DoorStreams,
    McpDoor,
  ],
  exports: [CatalogService, RESTAP_OPTIONS, NewsService, NewsWakeups, RestapRegistry, TalkService, CapabilityInvoker, CapabilityTools],
})
export class RestapModule extends RestapConfigurableModule {}
