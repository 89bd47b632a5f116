import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RestapBootstrapError } from '../discovery/restap-bootstrap.error';
import { RESTAP_TABLES } from './index';

/** Fails startup with instructions when the module's tables are missing (migrations not run). */
@Injectable()
export class StorageCheck implements OnModuleInit {
  constructor(private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    const rows = (await this.dataSource.query(
      `SELECT t.name FROM unnest($1::text[]) AS t(name) WHERE to_regclass(t.name) IS NULL`,
      [RESTAP_TABLES],
    )) as Array<{ name: string }>;
    if (rows.length) {
      throw new RestapBootstrapError(
        `RESTAP tables are missing (${rows.map((r) => r.name).join(', ')}): add RESTAP_MIGRATIONS from 'nestjs-restap' to your DataSource's migrations and run them (migrationsRun: true, or the TypeORM CLI).`,
      );
    }
  }
}
