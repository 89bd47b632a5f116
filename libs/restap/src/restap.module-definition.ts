import { ConfigurableModuleBuilder } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RESTAP_ENTITIES } from './persistence';
import { RESTAP_DATA_SOURCE, restapDataSourceProvider } from './persistence/restap-data-source';
import { RESTAP_ROUTE_DECORATORS } from './restap.constants';
import type { RestapModuleExtras } from './interfaces/restap-options.interface';
import type { RestapModuleOptions } from './restap-options';

/** forRoot / forRootAsync, typed options and the options token, from Nest's own builder. */
export const {
  ConfigurableModuleClass: RestapConfigurableModule,
  MODULE_OPTIONS_TOKEN: RESTAP_MODULE_OPTIONS,
  OPTIONS_TYPE: RESTAP_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: RESTAP_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RestapModuleOptions>({ moduleName: 'Restap' })
  .setClassMethodName('forRoot')
  .setExtras<RestapModuleExtras>({}, (definition, extras) => ({
    ...definition,
    // Global, so that `@Capability({ news: true })` routes in any module reach the module's news service.
    global: true,
    // The DataSource is chosen here, not in @Module(): its name is an extra, known when forRoot or
    // forRootAsync is called, while the options of forRootAsync only exist once its factory ran.
    imports: [...(definition.imports ?? []), TypeOrmModule.forFeature(RESTAP_ENTITIES, extras.dataSource)],
    providers: [
      ...(definition.providers ?? []),
      restapDataSourceProvider(extras.dataSource),
      { provide: RESTAP_ROUTE_DECORATORS, useValue: [...(extras.routeDecorators ?? [])] },
    ],
    exports: [...(definition.exports ?? []), RESTAP_DATA_SOURCE],
  }))
  .build();
