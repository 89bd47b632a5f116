import { VersioningType } from '@nestjs/common';
import { RESTAP_MIGRATIONS } from 'nestjs-restap';
import type { RunningApp } from '../support/sample-app';
import { boot } from './support/boot';
import { FixtureDatabase, openFixtureDatabase } from './support/fixture-database';
import { RoutingAppModule } from './fixtures/routing/routing.app';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

interface Capability { id: string; method: string; endpoint: string; parameters?: unknown[]; input_schema?: unknown; output_schema?: unknown }

describe('Discovery follows Nest routing: global prefix, URI versioning, RouterModule, route params', () => {
  let db: FixtureDatabase;
  let agent: RunningApp;
  let byId: Record<string, Capability>;

  beforeAll(async () => {
    db = await openFixtureDatabase();
    const database = db.typeorm({ autoLoadEntities: true, migrations: RESTAP_MIGRATIONS, migrationsRun: true });
    agent = await boot(RoutingAppModule.register(database), (app) => {
      app.setGlobalPrefix('api');
      app.enableVersioning({ type: VersioningType.URI });
    });
    const catalog = await (await fetch(`${agent.url}/.well-known/restap.json`)).json();
    byId = Object.fromEntries(catalog.capabilities.map((c: Capability) => [c.id, c]));
  });
  afterAll(async () => {
    await agent?.close();
    await db?.close();
  });

  it('serves the catalog at /.well-known/restap.json, not under the global prefix', async () => {
    expect((await fetch(`${agent.url}/.well-known/restap.json`)).status).toBe(200);
    expect((await fetch(`${agent.url}/api/.well-known/restap.json`)).status).toBe(404);
  });

  it('advertises each endpoint with the global prefix and the controller version: GET /api/v1/items/{id}', () => {
    expect(byId['items.get']).toMatchObject({ method: 'GET', endpoint: '/api/v1/items/{id}' });
    expect(byId['items.search']).toMatchObject({ method: 'GET', endpoint: '/api/v1/items' });
  });

  it('a method-level @Version("2") overrides the controller version', () => {
    expect(byId['items.create']).toMatchObject({ method: 'POST', endpoint: '/api/v2/items' });
    expect(byId['items.create'].input_schema).toEqual({
      type: 'object', properties: { name: { type: 'string', maxLength: 80 } }, required: ['name'],
    });
  });

  it('a RouterModule path is part of the endpoint: /api/admin/stats/{period}', () => {
    expect(byId['admin.stats']).toMatchObject({ method: 'GET', endpoint: '/api/admin/stats/{period}' });
  });

  it('@Param("id") and @Query("q") become parameters (ParseIntPipe: integer, issue 40 item 3): the path one required, the query one optional', () => {
    expect(byId['items.get'].parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
      { name: 'q', in: 'query', required: false, schema: { type: 'string' } },
    ]);
  });

  it('a @Query() DTO becomes one query parameter per property, with its schema and description', () => {
    expect(byId['items.search'].parameters).toEqual([
      { name: 'term', in: 'query', required: false, schema: { type: 'string' }, description: 'Words to look for' },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
    ]);
    expect(byId['items.search'].input_schema).toBeUndefined();
  });

  it('a @Param() DTO becomes required path parameters', () => {
    expect(byId['admin.stats'].parameters).toEqual([
      { name: 'period', in: 'path', required: true, schema: { type: 'string', enum: ['day', 'week'] } },
    ]);
  });

  it('a handler returning an Observable gets no output_schema (its class says nothing about the body)', () => {
    expect(byId['admin.periods']).toMatchObject({ method: 'GET', endpoint: '/api/admin/stats' });
    expect(byId['admin.periods'].output_schema).toBeUndefined();
  });

  it('every advertised endpoint answers at the advertised path', async () => {
    const call = (c: Capability, values: Record<string, string>, init?: RequestInit) =>
      fetch(agent.url + c.endpoint.replace(/\{(\w+)\}/g, (_, name: string) => values[name]), { method: c.method, ...init });
    expect(await (await call(byId['items.get'], { id: '7' })).json()).toEqual({ id: 7, q: null });
    expect((await call(byId['items.search'], {})).status).toBe(200);
    const created = await call(byId['items.create'], {}, { headers: { 'content-type': 'application/json' }, body: '{"name":"lamp"}' });
    expect(await created.json()).toEqual({ created: 'lamp' });
    expect(await (await call(byId['admin.stats'], { period: 'day' })).json()).toEqual({ period: 'day' });
  });
});
