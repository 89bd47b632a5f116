import { DynamicModule, Module } from '@nestjs/common';
import { RestapModule } from 'nestjs-restap';
import { DatabaseModule } from './database/database.module';
import { SampleConfig } from './sample.config';
import { TextController } from './text/text.controller';

export const AGENT_INFO = {
  name: 'Text Analysis Agent',
  description: 'AI agent specialized in text processing and analysis',
  contact: 'agent@example.com',
};

/** The sample RESTAP agent. `AppModule.register(config)` lets tests choose the database. */
@Module({})
export class AppModule {
  static register(config: SampleConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DatabaseModule.forRoot(config.database),
        RestapModule.forRoot({
          agent: AGENT_INFO,
          talk: false,
          news: { scope: config.newsScope },
          protocols: { mcp: { available: false }, a2a: { available: false } },
        }),
      ],
      controllers: [TextController],
    };
  }
}
