import { DynamicModule, Module } from '@nestjs/common';
import { PACKAGES_DIR, PackagesController } from './packages.controller';

/** GET /packages/<tarball>, the packages the catalog advertises. */
@Module({})
export class PackagesModule {
  static register(dir: string | undefined): DynamicModule {
    return { module: PackagesModule, controllers: [PackagesController], providers: [{ provide: PACKAGES_DIR, useValue: dir }] };
  }
}
