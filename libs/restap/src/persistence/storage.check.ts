import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { RESTAP_OPTIONS } from '../restap.constants';
import { RestapBootstrapError } from '../exceptions/restap-bootstrap.error';
import type { ResolvedRestapCoreOptions } from '../interfaces/restap-options.interface';
import { RESTAP_COLUMNS, RESTAP_TABLES } from './index';
import { RestapSql, statement } from './restap-sql';
import { InjectRestapDataSource } from './restap-data-source';
import type { DataSource } from 'typeorm';
import { RESTAP_ENTITIES } from './index';

const MISSING_TABLES = statement(`SELECT t.name FROM unnest($1::text[]) AS t(name) WHERE to_regclass(t.name) IS NULL`, 'startup.tables-check');
const DURABILITY = statement(
  `SELECT current_setting('synchronous_commit') AS synchronous_commit, current_setting('fsync') AS fsync, version() LIKE '%PGlite%' AS embedded`,
  'startup.durability-check',
);
const MISSING_COLUMNS = statement(
  `SELECT c.col, c.migration FROM unnest($1::text[], $2::text[], $3::text[]) AS c(tbl, col, migration)
   WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = to_regclass(c.tbl) AND a.attname = c.col AND NOT a.attisdropped)`,
  'startup.columns-check',
);

/**
 * At startup: fails with instructions when the module's tables are missing (migrations not run),
 * and checks durability: with `synchronous_commit = off` (or `fsync = off`) PostgreSQL may lose a
 * commit the module already acknowledged when it crashes. On a server that is logged loudly; on
 * embedded PGlite (always `fsync = off`) what it does guarantee is logged instead. Either is
 * refused when `storage.requireSynchronousCommit` is set.
 */
@Injectable()
export class StorageCheck implements OnModuleInit {
  private readonly logger = new Logger('Restap');

  constructor(
    private readonly sql: RestapSql,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
    @InjectRestapDataSource() private readonly dataSource: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    this.refuseSynchronize();
    const rows = await this.sql.query<{ name: string }>(MISSING_TABLES, [RESTAP_TABLES]);
    if (rows.length) {
      throw new RestapBootstrapError(
        `RESTAP tables are missing (${rows.map((r) => r.name).join(', ')}): add RESTAP_MIGRATIONS from 'nestjs-restap' to your DataSource's migrations and run them (migrationsRun: true, or the TypeORM CLI).`,
      );
    }
    await this.checkColumns();
    await this.checkDurability();
  }

  /**
   * TypeORM's `synchronize` rewrites the RESTAP tables from the entities alone: it drops the CHECK
   * constraints and partial indexes the migrations made and renames the foreign key, and the module
   * then stores what it must refuse. Refused, with what to change.
   */
  private refuseSynchronize(): void {
    if (!this.dataSource.options.synchronize) return;
    const ours = this.dataSource.entityMetadatas.filter((m) => (RESTAP_ENTITIES as Function[]).includes(m.target as Function)).map((m) => m.tableName);
    if (!ours.length) return;
    throw new RestapBootstrapError(
      `TypeORM synchronize is on for the DataSource holding the RESTAP tables (${ours.join(', ')}): synchronize rewrites them from the entities ` +
        `(dropping the CHECK constraints and indexes RESTAP_MIGRATIONS create), so the module refuses to start. Set synchronize: false and run ` +
        `RESTAP_MIGRATIONS (migrations: [...RESTAP_MIGRATIONS], migrationsRun: true); to keep synchronize for your own tables, put the RESTAP ` +
        `entities in a second DataSource without it and name that one with RestapModule.forRoot({ dataSource: '<name>' }).`,
    );
  }

  /** A database migrated by an older version lacks what later migrations add: say which, not a 503 on every turn. */
  private async checkColumns(): Promise<void> {
    const missing = await this.sql.query<{ col: string; migration: string }>(MISSING_COLUMNS, [
      RESTAP_COLUMNS.map((c) => c.table),
      RESTAP_COLUMNS.map((c) => c.column),
      RESTAP_COLUMNS.map((c) => c.migration),
    ]);
    if (!missing.length) return;
    throw new RestapBootstrapError(
      `RESTAP migrations are pending (${[...new Set(missing.map((m) => m.migration))].join(', ')}): add RESTAP_MIGRATIONS from 'nestjs-restap' to your DataSource's migrations and run them (migrationsRun: true, or the TypeORM CLI).`,
    );
  }

  private async checkDurability(): Promise<void> {
    const [settings] = await this.sql.query<{ synchronous_commit: string; fsync: string; embedded: boolean }>(DURABILITY, []);
    const unsafe = [
      ...(settings?.synchronous_commit === 'off' ? ['synchronous_commit = off'] : []),
      ...(settings?.fsync === 'off' ? ['fsync = off'] : []),
    ];
    if (!unsafe.length) return;
    const message =
      `PostgreSQL runs with ${unsafe.join(' and ')}: a /talk turn or /news item acknowledged to a client can be lost if the database crashes. ` +
      `Set synchronous_commit = on (and fsync = on) for this database or role.`;
    if (this.options.storage.requireSynchronousCommit) {
      throw new RestapBootstrapError(`${message} (Refusing to start: storage.requireSynchronousCommit is set.)`);
    }
    // PGlite always runs without fsync; that is what embedded mode is, not a misconfiguration.
    if (settings.embedded && settings.synchronous_commit !== 'off') this.logger.log(EMBEDDED_DURABILITY);
    else this.logger.warn(`DURABILITY WARNING: ${message}`);
  }
}

/** What the embedded database guarantees, said once at startup (measured: kill -9 after an ack keeps the item). */
export const EMBEDDED_DURABILITY =
  'Embedded PostgreSQL (PGlite): each /talk turn and /news item is committed, and written to the data folder, before it is acknowledged, ' +
  'so it survives the process crashing or being killed. PGlite does not fsync, so an operating-system crash or power loss can lose the last ' +
  'acknowledged writes. For production, replicas or data you cannot lose, use a PostgreSQL server.';
