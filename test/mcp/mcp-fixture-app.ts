import { Injectable, Module, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { RestapModule, Talk, type RestapModuleOptions, type TalkContext } from 'nestjs-restap';
import { DatabaseModule } from '../../apps/sample-agent/src/database/database.module';
import type { DatabaseTarget } from '../../apps/sample-agent/src/database/database.options';
import { listen, type RunningApp } from '../support/sample-app';
import { configureToolsFixture, OrdersController } from '../fixtures/tools-app';

/** The reply the fixture's @Talk() handler streams, one piece at a time. */
export const TALK_PIECES = ['Hel', 'lo ', 'from ', 'MCP'];

/** Streams TALK_PIECES, then says how many earlier turns it saw (proves the session continued). */
@Injectable()
export class StreamingBrain {
  @Talk()
  async *answer(ctx: TalkContext): AsyncGenerator<string> {
    for (const piece of TALK_PIECES) {
      yield piece;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    yield ` (history: ${ctx.history.length})`;
  }
}

/**
 * A host app with the MCP door on: the invoker fixture's OrdersController (a guarded GET with path
 * and query parameters, a ValidationPipe body, a crashing route, a `tool: false` route), the
 * streaming brain, news in the given scope, the host's global ValidationPipe.
 */
export async function startMcpFixture(database: DatabaseTarget, options: Partial<RestapModuleOptions> = {}, logger?: LoggerService): Promise<RunningApp> {
  @Module({
    imports: [
      DatabaseModule.forRoot(database),
      RestapModule.forRoot({ agent: { name: 'MCP fixture', description: 'Orders and talk' }, mcp: { enabled: true }, ...options }),
    ],
    controllers: [OrdersController],
    providers: [StreamingBrain],
  })
  class McpFixtureModule {}
  const app = await NestFactory.create<NestExpressApplication>(McpFixtureModule, { logger: logger ?? (process.env.MCP_FIXTURE_LOGS ? ['log', 'error', 'warn'] : false) });
  configureToolsFixture(app);
  return listen(app);
}
