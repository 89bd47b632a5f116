import { ConfigurableModuleBuilder } from '@nestjs/common';
import { createRestapControllers } from './restap/restap.controllers';
import type { RestapModuleExtras, RestapModuleOptions } from './interfaces/restap-options.interface';

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
    controllers: createRestapControllers(extras),
  }))
  .build();
