import { createTestDatabase, usingServer } from './test-database';
import { createTempPostgres } from './temp-postgres';

/** One PostgreSQL database that several replicas of an agent share, and how to let it go. */
export interface ReplicaDatabase {
  url: string;
  close(): Promise<void>;
}

/**
 * The database two (or more) replicas of one agent share: a fresh one on the server of
 * TEST_DATABASE_URL, else a PostgreSQL server of its own the test starts (two embedded databases
 * would be two agents, not two replicas of one). Close it after the replicas.
 */
export async function openReplicaDatabase(): Promise<ReplicaDatabase> {
  if (usingServer()) {
    const db = await createTestDatabase();
    return { url: db.url as string, close: () => db.drop() };
  }
  const pg = await createTempPostgres();
  return { url: pg.url, close: async () => pg.destroy() };
}
