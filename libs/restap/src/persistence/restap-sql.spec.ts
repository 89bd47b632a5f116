import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { errorKind } from './restap-sql';

/** The error a driver throws for `SELECT * FROM nope` (42P01, undefined table). */
async function undefinedTable(run: (sql: string) => Promise<unknown>): Promise<unknown> {
  return run('SELECT * FROM nope').then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('errorKind: the class a failed statement is logged with', () => {
  it("names PGlite's minified server error DatabaseError, as node-postgres' own (the embedded default)", async () => {
    const db = new PGlite();
    try {
      const error = await undefinedTable((sql) => db.query(sql));
      expect((error as object).constructor.name).not.toBe('DatabaseError');
      expect(errorKind(error)).toBe('DatabaseError');
    } finally {
      await db.close();
    }
  });

  it('keeps the class of an error PostgreSQL did not report', () => {
    expect(errorKind(new TypeError('x'))).toBe('TypeError');
    expect(errorKind(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe('Error');
    expect(errorKind(undefined)).toBe('Error');
  });

  (process.env.TEST_DATABASE_URL ? it : it.skip)("names node-postgres' server error DatabaseError", async () => {
    const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      expect(errorKind(await undefinedTable((sql) => client.query(sql)))).toBe('DatabaseError');
    } finally {
      await client.end();
    }
  });
});
