import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DatabaseTarget } from '../../apps/sample-agent/src/database/database.options';

/** A database of its own for one test file. */
export interface TestDatabase {
  target: DatabaseTarget;
  /** Connection string when the target is a server (for direct SQL in tests). */
  url?: string;
  drop(): Promise<void>;
}

/** Prefix of the databases tests create on a server when TEST_DATABASE_PREFIX is unset. */
export const DEFAULT_TEST_DATABASE_PREFIX = 'restap_t_';

/**
 * TEST_DATABASE_PREFIX, checked: the names are written into CREATE/DROP DATABASE, so only a plain
 * lower-case identifier is accepted, short enough to leave room for the 12 random hex digits
 * (PostgreSQL keeps 63 bytes of a name).
 */
export function testDatabasePrefix(env: NodeJS.ProcessEnv = process.env): string {
  const prefix = env.TEST_DATABASE_PREFIX ?? DEFAULT_TEST_DATABASE_PREFIX;
  if (!/^[a-z_][a-z0-9_]{0,50}$/.test(prefix)) {
    throw new Error(`TEST_DATABASE_PREFIX must be a lower-case identifier of at most 51 characters (letters, digits, '_'), got ${JSON.stringify(prefix)}.`);
  }
  return prefix;
}

/**
 * With TEST_DATABASE_URL set: a fresh database on that PostgreSQL server, named
 * TEST_DATABASE_PREFIX (default `restap_t_`) + 12 random hex digits, dropped afterwards.
 * Without it: the embedded default (PGlite), in memory unless `dataDir` is given.
 */
export async function createTestDatabase(opts: { dataDir?: string } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    return { target: { dataDir: opts.dataDir ?? 'memory://' }, drop: async () => undefined };
  }
  const name = `${testDatabasePrefix()}${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    target: { url: url.toString() },
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Registers beforeAll/afterAll that give the enclosing `describe` a database of its own (dropped
 * afterwards), for apps its nested describes start and close; returns a handle to it. `onDisk`
 * keeps the embedded database in a temporary folder, so it outlives one app (ignored with a server).
 *
 * @example
 * const db = useTestDatabase({ onDisk: true });
 * describe('…', () => { beforeAll(async () => { app = await startTalkFixture(db.target); }); });
 */
export function useTestDatabase(opts: { onDisk?: boolean } = {}): Omit<TestDatabase, 'drop'> {
  const dataDir = opts.onDisk ? mkdtempSync(join(tmpdir(), 'restap-test-db-')) : undefined;
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase({ dataDir });
  });
  afterAll(async () => {
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  const created = (): TestDatabase => {
    if (!db) throw new Error('useTestDatabase(): the database is created in beforeAll; use the handle inside hooks and tests.');
    return db;
  };
  return {
    get target() { return created().target; },
    get url() { return created().url; },
  };
}

/** True when tests run against a PostgreSQL server rather than the embedded default. */
export const usingServer = (): boolean => Boolean(process.env.TEST_DATABASE_URL);
