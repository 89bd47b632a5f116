import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, 'fixtures', 'doors', 'sdk-loading.app.ts');

interface Loaded {
  sdks: string[];
  error?: string;
}

/** Boots the fixture agent in a fresh Node process (a require.cache of its own) and reads what it loaded. */
async function boot(db: TestDatabase, variant: string, enabled: string[], doors?: string[]): Promise<Loaded> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(db.url ? { DATABASE_URL: db.url } : {}) };
  delete env.DOORS;
  if (doors) env.DOORS = doors.join(',');
  const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/run-ts.mjs'), FIXTURE, variant, enabled.join(',')], { cwd: ROOT, env, timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Loaded;
}

describe('Doors as modules: a disabled door costs nothing (issue 33)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  it('forRoot with MCP, A2A and AG-UI off loads none of their SDKs (@ag-ui/* not in require.cache: issue 39)', async () => {
    expect(await boot(db, 'forRoot', [])).toEqual({ sdks: [] });
  });

  it('forRoot with MCP on loads the MCP SDK only, with A2A on the A2A SDK only', async () => {
    expect(await boot(db, 'forRoot', ['mcp'])).toEqual({ sdks: ['@modelcontextprotocol'] });
    expect(await boot(db, 'forRoot', ['a2a', 'playground'])).toEqual({ sdks: ['@a2a-js'] });
  });

  it('forRoot with AG-UI on loads @ag-ui/* only; forRootAsync without agui in `doors` never loads it (issue 39)', async () => {
    expect(await boot(db, 'forRoot', ['agui'])).toEqual({ sdks: ['@ag-ui'] });
    expect(await boot(db, 'forRootAsync', ['mcp', 'a2a'], ['mcp', 'a2a'])).toEqual({ sdks: ['@a2a-js', '@modelcontextprotocol'] });
    expect(await boot(db, 'forRootAsync', ['agui'], ['agui'])).toEqual({ sdks: ['@ag-ui'] });
  });

  it("forRootAsync loads only the doors its `doors` lists, and refuses options that enable another", async () => {
    expect(await boot(db, 'forRootAsync', [], [])).toEqual({ sdks: [] });
    expect(await boot(db, 'forRootAsync', ['mcp'], ['mcp'])).toEqual({ sdks: ['@modelcontextprotocol'] });
    const refused = await boot(db, 'forRootAsync', ['a2a'], ['mcp']);
    expect(refused.error).toMatch(/a2a\.enabled is true, but forRootAsync's doors \(mcp\) does not list 'a2a'/);
  });

  it('forRootAsync without `doors` may open every door, as before (so every door\'s SDK is loaded, AG-UI\'s too)', async () => {
    expect(await boot(db, 'forRootAsync', ['mcp', 'a2a'])).toEqual({ sdks: ['@a2a-js', '@ag-ui', '@modelcontextprotocol'] });
  });
});
