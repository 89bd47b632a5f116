import { Inject, type Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';

/**
 * The TypeORM DataSource holding the RESTAP tables: the host's default one, or the one named by
 * the module's `dataSource` extra. Everything in the module that runs SQL injects this token, never
 * `DataSource` itself, so a host whose RESTAP tables live in a second DataSource can say so.
 */
export const RESTAP_DATA_SOURCE = Symbol('RESTAP_DATA_SOURCE');

/** Injects the DataSource holding the RESTAP tables. */
export const InjectRestapDataSource = (): ParameterDecorator => Inject(RESTAP_DATA_SOURCE);

/** `RESTAP_DATA_SOURCE` as an alias of `@nestjs/typeorm`'s token for that name (default: the unnamed DataSource). */
export function restapDataSourceProvider(name?: string): Provider {
  return { provide: RESTAP_DATA_SOURCE, useExisting: getDataSourceToken(name) };
}
