import { createTestDatabase, usingServer } from '../support/test-database';
import { createTempPostgres } from '../reliability/support/temp-postgres';

/** One PostgreSQL two replicas share, and how to drop it. */
export interface SharedPostgres {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the server of TEST_DATABASE_URL, else a PostgreSQL the test starts itself
 * (two embedded databases would be two agents, not two replicas of one), as the replica tests do.
 */
export async function sharedPostgres(): Promise<SharedPostgres> {
  if (usingServer()) {
    const db = await createTestDatabase();
    return { url: db.url as string, drop: () => db.drop() };
  }
  const pg = await createTempPostgres();
  return { url: pg.url, drop: async () => pg.destroy() };
}
