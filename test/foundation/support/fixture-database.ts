import type { DynamicModule } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../../support/test-database';

/** How a fixture app reaches its database: `type`, and a URL or an embedded connection. */
export type ConnectionOptions = Pick<TypeOrmModuleOptions, 'type'> & Record<string, unknown>;

/**
 * One database for a test file, on the TEST_DATABASE_URL server when set (a fresh database,
 * dropped at the end), else embedded PGlite in memory. Fixture apps bring their own entities
 * and migrations; this only says where the database is.
 */
export interface FixtureDatabase {
  /** Options for one app's DataSource; each call gets its own connection. */
  connection(): ConnectionOptions;
  /** Plain SQL against the database, outside any app. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * TypeORM root module whose DataSources `destroyAll()` can close even when the app never started;
   * `name` registers a named DataSource (`TypeOrmModule.forRootAsync({ name })`).
   */
  typeorm(options: Partial<TypeOrmModuleOptions>, name?: string): DynamicModule;
  destroyAll(): Promise<void>;
  close(): Promise<void>;
}

export async function openFixtureDatabase(): Promise<FixtureDatabase> {
  const created: DataSource[] = [];
  const common = { type: 'postgres' as const, uuidExtension: 'pgcrypto' as const, logging: false };
  let server: TestDatabase | undefined;
  let pglite: { close(): Promise<void> } | undefined;
  let connection: () => ConnectionOptions;
  let query: FixtureDatabase['query'];
  /** Run before each app's DataSource connects. */
  let beforeConnect = async (): Promise<void> => undefined;

  if (process.env.TEST_DATABASE_URL) {
    server = await createTestDatabase();
    const url = server.url as string;
    connection = () => ({ ...common, url });
    query = async (sql, params) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    };
  } else {
    const { PGlite } = await import('@electric-sql/pglite');
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
    const db = await PGlite.create('memory://');
    pglite = db;
    connection = () => ({ ...common, installExtensions: false, extra: { max: 1, idleTimeoutMillis: 0, connection: createPgConfig(db).connection } });
    query = async (sql, params) => (await db.query(sql, params)).rows as never;
    // Every connection to one PGlite instance is the same database session: a new app would find
    // the prepared statements of the apps before it (42P05). A server's new connection has none.
    beforeConnect = async () => void (await db.exec('DEALLOCATE ALL'));
  }

  const destroyAll = async (): Promise<void> => {
    for (const ds of created.splice(0)) if (ds.isInitialized) await ds.destroy().catch(() => undefined);
  };
  return {
    connection,
    query,
    typeorm: (options, name) =>
      TypeOrmModule.forRootAsync({
        ...(name ? { name } : {}),
        useFactory: () => ({ ...connection(), ...options }) as TypeOrmModuleOptions,
        dataSourceFactory: async (opts) => {
          const ds = new DataSource(opts as DataSourceOptions);
          created.push(ds);
          await beforeConnect();
          return ds.initialize();
        },
      }),
    destroyAll,
    close: async () => {
      await destroyAll();
      await pglite?.close();
      await server?.drop();
    },
  };
}
