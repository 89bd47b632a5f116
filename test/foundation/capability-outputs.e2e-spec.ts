import { RESTAP_MIGRATIONS } from 'nestjs-restap';
import { RestapClient, RestapError } from 'restap-client';
import { main } from '../../libs/restap-client/src/cli/main';
import { captureIo } from '../client/fixtures/capture';
import type { RunningApp } from '../support/sample-app';
import { boot } from './support/boot';
import { FixtureDatabase, openFixtureDatabase } from './support/fixture-database';
import { TodosAppModule } from './fixtures/todos/todos.app';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

interface Entry { id: string; endpoint: string; output_schema?: Record<string, unknown>; [extra: string]: unknown }

const todoItem = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    title: { type: 'string', description: 'What to do' },
    done: { type: 'boolean' },
    tags: { type: 'array', items: { $ref: '#/$defs/TagDto' } },
  },
  required: ['id', 'title', 'done', 'tags'],
};

describe('output_schema follows what a route answers (spec, "Capability Fields": output_schema describes the response body)', () => {
  let db: FixtureDatabase;
  let agent: RunningApp;
  let byId: Record<string, Entry>;
  let client: RestapClient;

  beforeAll(async () => {
    db = await openFixtureDatabase();
    const database = db.typeorm({ autoLoadEntities: true, migrations: RESTAP_MIGRATIONS, migrationsRun: true });
    // The README's recipe: a global prefix for the host's routes, /talk and /news kept at the root.
    agent = await boot(TodosAppModule.register(database), (app) => app.setGlobalPrefix('api', { exclude: ['talk', 'news'] }));
    client = await RestapClient.discover(agent.url);
    byId = Object.fromEntries(client.catalog.capabilities.map((c) => [c.id, c as Entry]));
  });
  afterAll(async () => {
    await agent?.close();
    await db?.close();
  });

  it('output: [TodoDto] publishes an array of the DTO, nested DTOs under the array\'s own $defs', () => {
    expect(byId['todos.search'].output_schema).toEqual({
      type: 'array',
      items: todoItem,
      $defs: { TagDto: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } },
    });
  });

  it('without output, @ApiOkResponse({ type: TodoDto, isArray: true }) and ({ type: [String] }) give the arrays', () => {
    expect(byId['todos.open'].output_schema).toMatchObject({ type: 'array', items: todoItem });
    expect(byId['todos.titles'].output_schema).toEqual({ type: 'array', items: { type: 'string' } });
  });

  it('output: Number publishes a primitive schema', () => {
    expect(byId['todos.count'].output_schema).toEqual({ type: 'number' });
  });

  it('extra fields are copied into the catalog entry as given', () => {
    expect(byId['todos.search'].pricing).toEqual({ per_call_usd: 0 });
    expect(Object.keys(byId['todos.search'])).not.toContain('extra');
  });

  it('the client accepts a correct array answer, a string list and a number, checked against output_schema', async () => {
    await expect(client.call('todos.search', undefined, { query: { q: 'README' } })).resolves.toEqual([
      { id: 1, title: 'Write the README', done: true, tags: [{ label: 'docs' }] },
    ]);
    await expect(client.call('todos.open')).resolves.toHaveLength(1);
    await expect(client.call('todos.titles')).resolves.toEqual(['Write the README', 'Ship the client']);
    await expect(client.call('todos.count')).resolves.toBe(2);
  });

  it('the client refuses an object where the catalog promises an array (invalid_output)', async () => {
    const error = await client.call('todos.broken').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RestapError);
    expect(error).toMatchObject({ code: 'invalid_output', message: expect.stringContaining('(root) must be array') });
  });

  it('`restap call <url> todos.search` prints the array and exits 0', async () => {
    const { io, stdout, stderr } = captureIo();
    const code = await main(['call', agent.url, 'todos.search'], io);
    expect({ code, stderr: stderr.text }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout.text)).toHaveLength(2);
  });

  it('global prefix with exclude: the host\'s routes under /api, /talk and /news at the root, as the catalog says', async () => {
    expect(byId['todos.search'].endpoint).toBe('/api/todos');
    expect(byId.talk.endpoint).toBe('/talk');
    expect(byId.news.endpoint).toBe('/news');
    const reply = await client.talk('hi');
    expect(reply.reply).toBe('ok');
    expect((await fetch(`${agent.url}/api/talk`, { method: 'POST' })).status).toBe(404);
  });
});
