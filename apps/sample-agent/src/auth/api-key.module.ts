import { DynamicModule, Module } from '@nestjs/common';
import { API_KEY, ApiKeyGuard } from './api-key.guard';

/**
 * The sample's API key (RESTAP_API_KEY) and its guard, for every module: RestapModule's `guards`
 * and the feature modules' `@UseGuards(ApiKeyGuard)` all read the same key.
 */
@Module({})
export class ApiKeyModule {
  static register(apiKey: string | undefined): DynamicModule {
    return {
      module: ApiKeyModule,
      global: true,
      providers: [{ provide: API_KEY, useValue: apiKey }, ApiKeyGuard],
      exports: [API_KEY, ApiKeyGuard],
    };
  }
}
