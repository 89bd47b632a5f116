import { Client } from 'pg';
import { createTestDatabase, DEFAULT_TEST_DATABASE_PREFIX, testDatabasePrefix, usingServer } from '../support/test-database';

const itWithServer = usingServer() ? it : it.skip;

describe('TEST_DATABASE_PREFIX names the databases tests create on a shared server', () => {
  const saved = process.env.TEST_DATABASE_PREFIX;
  afterEach(() => {
    if (saved === undefined) delete process.env.TEST_DATABASE_PREFIX;
    else process.env.TEST_DATABASE_PREFIX = saved;
  });

  it('defaults to restap_t_ and takes a plain lower-case identifier', () => {
    expect(testDatabasePrefix({})).toBe(DEFAULT_TEST_DATABASE_PREFIX);
    expect(testDatabasePrefix({ TEST_DATABASE_PREFIX: 'ci_job42_' })).toBe('ci_job42_');
  });

  it('refuses a prefix that is not a safe database name, or too long to leave room for the random part', () => {
    for (const bad of ['Team-A_', 'x; DROP DATABASE postgres; --', '', 'a'.repeat(52)]) {
      expect(() => testDatabasePrefix({ TEST_DATABASE_PREFIX: bad })).toThrow(/TEST_DATABASE_PREFIX must be a lower-case identifier/);
    }
  });

  itWithServer('a test database is created under the prefix and dropped afterwards', async () => {
    process.env.TEST_DATABASE_PREFIX = 'restap_prefix_check_';
    const db = await createTestDatabase();
    const name = new URL(db.url as string).pathname.slice(1);
    expect(name).toMatch(/^restap_prefix_check_[0-9a-f]{12}$/);
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const exists = async (): Promise<boolean> => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
      expect(await exists()).toBe(true);
      await db.drop();
      expect(await exists()).toBe(false);
    } finally {
      await admin.end();
    }
  });
});
