import type { RunningApp } from '../support/sample-app';
import { RESTAP_MIGRATIONS } from 'nestjs-restap';
import { boot } from './support/boot';
import { FixtureDatabase, openFixtureDatabase } from './support/fixture-database';
import { BackendModule, configureBackend } from './fixtures/existing-backend/backend.app';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

interface Answer { status: number; type: string | null; body: unknown }

/** The backend's own requests, replayed before and after RESTAP is added. */
const REQUESTS: Array<[string, string, string?]> = [
  ['GET', '/api/widgets'],
  ['GET', '/api/widgets/1'],
  ['GET', '/api/widgets/999'],
  ['GET', '/api/widgets/abc'],
  ['POST', '/api/widgets', '{"name":"","stock":-1}'],
  ['POST', '/api/widgets', '{"name":'],
  ['GET', '/api/no-such-route'],
  ['GET', '/widgets'],
];

async function ask(base: string, [method, path, body]: [string, string, string?]): Promise<Answer> {
  const res = await fetch(base + path, { method, body, headers: body ? { 'content-type': 'application/json' } : {} });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json().catch(() => null) };
}

describe('An existing Nest backend gains RESTAP by adding the module and decorators, and nothing else changes', () => {
  let db: FixtureDatabase;
  let before: Answer[];
  let beforeTables: string[];
  let after: RunningApp;

  const tables = async () => (await db.query<{ tablename: string }>(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).map((t) => t.tablename);

  beforeAll(async () => {
    db = await openFixtureDatabase();
    const plain = await boot(BackendModule.register(db.connection(), false), configureBackend);
    try {
      const created = await ask(plain.url, ['POST', '/api/widgets', '{"name":"sprocket","stock":3}']);
      expect(created).toEqual({ status: 201, type: expect.stringMatching(/^application\/json/), body: { id: 1, name: 'sprocket', stock: 3 } });
      before = [];
      for (const request of REQUESTS) before.push(await ask(plain.url, request));
      beforeTables = await tables();
    } finally {
      await plain.close();
    }
    after = await boot(BackendModule.register(db.connection(), true), configureBackend);
  });
  afterAll(async () => {
    await after?.close();
    await db?.close();
  });

  it('the backend answers in its own error shape to begin with (the baseline is meaningful)', () => {
    expect(before[2]).toEqual({ status: 404, type: expect.stringMatching(/^application\/problem\+json/), body: { ok: false, problem: { status: 404, title: 'Widget 999 does not exist' } } });
    expect(before[4].body).toEqual({ ok: false, problem: { status: 400, title: 'Validation failed', fields: { name: ['isLength'], stock: ['min'] } } });
    expect(before[5]).toMatchObject({ status: 400, body: { ok: false, problem: { status: 400 } } });
    expect(before[6]).toMatchObject({ status: 404, body: { ok: false, problem: { status: 404 } } });
    expect(beforeTables).toEqual(['migrations', 'widgets']);
  });

  it.each(REQUESTS.map((r, i) => [`${r[0]} ${r[1]}${r[2] ? ` ${r[2]}` : ''}`, i]))('its own route answers exactly as before: %s', async (_, i) => {
    expect(await ask(after.url, REQUESTS[i as number])).toEqual(before[i as number]);
  });

  it('its own routes still write: POST /api/widgets creates the next widget', async () => {
    expect(await ask(after.url, ['POST', '/api/widgets', '{"name":"gear","stock":0}'])).toMatchObject({ status: 201, body: { id: 2, name: 'gear' } });
  });

  it('its table and its migration are untouched; RESTAP adds its own tables and migration beside them', async () => {
    expect(await tables()).toEqual([...beforeTables, 'restap_a2a_push_configs', 'restap_a2a_tasks', 'restap_approvals', 'restap_mcp_sessions', 'restap_news', 'restap_news_sequences', 'restap_replicas', 'restap_sessions', 'restap_talk_frames', 'restap_turns'].sort());
    const migrations = await db.query<{ name: string }>(`SELECT name FROM migrations ORDER BY id`);
    expect(migrations.map((m) => m.name)).toEqual(['CreateWidgets1700000000000', ...RESTAP_MIGRATIONS.map((m) => m.name)]);
    expect(await db.query(`SELECT name, stock FROM widgets WHERE id = 1`)).toEqual([{ name: 'sprocket', stock: 3 }]);
  });

  it('the catalog lists its decorated routes at their served paths, under its global prefix', async () => {
    const catalog = await (await fetch(`${after.url}/.well-known/restap.json`)).json();
    const byId = Object.fromEntries(catalog.capabilities.map((c: { id: string }) => [c.id, c]));
    expect(catalog.agent).toEqual({ name: 'Widget Shop' });
    expect(byId['widgets.list']).toMatchObject({ method: 'GET', endpoint: '/api/widgets' });
    expect(byId['widgets.get']).toMatchObject({ method: 'GET', endpoint: '/api/widgets/{id}', parameters: [{ name: 'id', in: 'path', required: true }] });
    expect(byId['widgets.create']).toMatchObject({
      method: 'POST',
      endpoint: '/api/widgets',
      input_schema: { type: 'object', properties: { name: { type: 'string', minLength: 1, maxLength: 50 }, stock: { type: 'integer', minimum: 0 } } },
    });
  });

  it("RESTAP's own routes keep RESTAP's error shape inside the host: bad JSON to /api/news is 400 invalid_json", async () => {
    const catalog = await (await fetch(`${after.url}/.well-known/restap.json`)).json();
    const news = catalog.capabilities.find((c: { id: string }) => c.id === 'news_receive');
    expect(news).toMatchObject({ endpoint: '/api/news' });
    const res = await fetch(`${after.url}/api/news`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_json', message: 'The request body is not valid JSON.' });
  });
});
