import { CanActivate, Controller, ExecutionContext, Get, Injectable, Module, type LoggerService, type ModuleMetadata, type Provider, type Type } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import type { ExpressAdapter, NestExpressApplication } from '@nestjs/platform-express';
import { News, RestapModule, Talk, type NewsItem, type RestapModuleOptions, type TalkContext, type TalkResult } from 'nestjs-restap';
import { DatabaseModule } from '../../../apps/sample-agent/src/database/database.module';
import type { DatabaseTarget } from '../../../apps/sample-agent/src/database/database.options';
import { listen, type RunningApp } from '../../support/sample-app';

/** The fixture's @Talk() handler: counts its calls (to prove a refusal came before it) and runs `behaviour`. */
@Injectable()
export class CountingBrain {
  calls = 0;
  readonly news: NewsItem[] = [];
  behaviour: (ctx: TalkContext) => TalkResult = (ctx) => `echo: ${ctx.message}`;

  @Talk()
  answer(ctx: TalkContext): TalkResult {
    this.calls++;
    return this.behaviour(ctx);
  }

  @News()
  remember(item: NewsItem): void {
    this.news.push(item);
  }
}

/** A host-wide guard (APP_GUARD) that refuses any request carrying `X-Host-Block`. */
@Injectable()
export class HostBlockGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-host-block'] === undefined;
  }
}

/** A host route that must keep the host's own behaviour (no RESTAP rate limit, guards or shape). */
@Controller('host')
export class HostController {
  @Get('ping')
  ping(): { pong: true } {
    return { pong: true };
  }
}

/** Options of a reliability fixture app. */
export interface ReliabilityAppOptions {
  restap?: Partial<RestapModuleOptions>;
  providers?: Provider[];
  /** More modules of the host (e.g. one that configures middleware with MiddlewareConsumer). */
  imports?: ModuleMetadata['imports'];
  /** More controllers of the host (e.g. capabilities). */
  controllers?: Array<Type<unknown>>;
  /** Register HostBlockGuard as APP_GUARD. */
  hostGuard?: boolean;
  configure?: (app: NestExpressApplication) => void;
  logger?: LoggerService | false;
  /** The HTTP adapter, e.g. an ExpressAdapter over an Express app with its own routing settings. */
  adapter?: ExpressAdapter;
}

/** A running fixture with its handler. */
export interface ReliabilityApp extends RunningApp {
  brain: CountingBrain;
}

/** A host app with RestapModule on the given database, configurable options, and a host route. */
export async function startReliabilityApp(database: DatabaseTarget, options: ReliabilityAppOptions = {}): Promise<ReliabilityApp> {
  @Module({
    imports: [DatabaseModule.forRoot(database), RestapModule.forRoot({ agent: { name: 'Reliability fixture' }, ...options.restap }), ...(options.imports ?? [])],
    controllers: [HostController, ...(options.controllers ?? [])],
    providers: [CountingBrain, ...(options.hostGuard ? [{ provide: APP_GUARD, useClass: HostBlockGuard }] : []), ...(options.providers ?? [])],
  })
  class ReliabilityModule {}
  const app = options.adapter
    ? await NestFactory.create<NestExpressApplication>(ReliabilityModule, options.adapter, { logger: options.logger ?? false })
    : await NestFactory.create<NestExpressApplication>(ReliabilityModule, { logger: options.logger ?? false });
  options.configure?.(app);
  const running = await listen(app).catch(async (error: unknown) => {
    await app.close().catch(() => undefined); // a refused startup must not leave its pool open
    throw error;
  });
  return { ...running, brain: app.get(CountingBrain) };
}
