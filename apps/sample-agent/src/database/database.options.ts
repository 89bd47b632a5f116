import { SampleNotes1765900000000 } from '../notes/notes.migration';
import { Logger } from '@nestjs/common';
import type { TypeOrmModuleOptions } from '@nestjs/typeorm';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { RESTAP_MIGRATIONS } from 'nestjs-restap';
import { TypeOrmNestLogger } from './typeorm-nest.logger';
import { ReplyWatchdog } from './reply-watchdog';

/** Where the agent keeps its data: a PostgreSQL server, or PostgreSQL embedded in the process. */
export interface DatabaseTarget {
  /** `postgres://…` of a server; when absent the embedded PGlite database is used. */
  url?: string;
  /** Folder of the embedded database, or `memory://` for a throwaway one. */
  dataDir?: string;
}

/** Reads DATABASE_URL and RESTAP_DATA_DIR. */
export function databaseTargetFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  return env.DATABASE_URL ? { url: env.DATABASE_URL } : { dataDir: env.RESTAP_DATA_DIR || './.restap-data' };
}

/** A one-line description for logs: never the password of a URL. */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.url) {
    const url = new URL(target.url);
    return `PostgreSQL at ${url.hostname}:${url.port || 5432}${url.pathname}`;
  }
  return target.dataDir === 'memory://' ? 'embedded PostgreSQL (PGlite, in memory: nothing is kept when the process exits)' : `embedded PostgreSQL (PGlite) in ${resolve(target.dataDir ?? '')}`;
}

/**
 * Bounds on every wait for the PostgreSQL server, so that while it is down or unreachable a request
 * fails (503 storage_unavailable) within a few seconds instead of hanging: getting a connection
 * (refused at once when the server is down, 2 s when packets go nowhere), a statement (server side)
 * and a reply (client side, for a network that went silent mid-query). The pool's connections keep
 * the reply bound with one {@link ReplyWatchdog} sweep instead of node-postgres' timer per statement;
 * a client copying these options (the news LISTEN connection) keeps node-postgres' own.
 */
export const SERVER_TIMEOUTS = { connectionTimeoutMillis: 2_000, statement_timeout: 5_000, query_timeout: 6_000, keepAlive: true } as const;

/**
 * TypeORM options for either target. Migrations (RESTAP's and the app's) run at startup;
 * `synchronize` is never used. The embedded database goes through PGlite's own node-postgres
 * adapter, so TypeORM sees an ordinary `postgres` driver.
 */
export async function createDatabaseOptions(
  target: DatabaseTarget,
  logger = new Logger('Database'),
): Promise<{ options: TypeOrmModuleOptions; close: () => Promise<void> }> {
  const common = {
    type: 'postgres' as const,
    autoLoadEntities: true,
    synchronize: false,
    migrations: [...RESTAP_MIGRATIONS, SampleNotes1765900000000],
    migrationsRun: true,
    migrationsTransactionMode: 'each' as const,
    uuidExtension: 'pgcrypto' as const,
    // Failed statements are logged through Nest's logger, like the rest of the app's lines.
    logger: new TypeOrmNestLogger(['error']),
  };
  if (target.url) {
    const Client = new ReplyWatchdog(SERVER_TIMEOUTS.query_timeout).clientClass();
    const options = { ...common, url: target.url, extra: { max: Number(process.env.DATABASE_POOL_SIZE) || 10, ...SERVER_TIMEOUTS, Client } };
    return { options, close: async () => undefined };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const dataDir = target.dataDir ?? './.restap-data';
  if (dataDir !== 'memory://') mkdirSync(dataDir, { recursive: true });
  const started = Date.now();
  const pglite = await PGlite.create(dataDir);
  logger.log(`${describeDatabase(target)} ready in ${Date.now() - started} ms`);
  const options = {
    ...common,
    installExtensions: false,
    // PGlite is one session: a single, never-recycled connection keeps every transaction on its own.
    extra: { max: 1, idleTimeoutMillis: 0, connection: createPgConfig(pglite).connection },
  } as TypeOrmModuleOptions;
  return { options, close: () => pglite.close() };
}
