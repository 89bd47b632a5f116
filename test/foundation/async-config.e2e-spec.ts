import type { NestExpressApplication } from '@nestjs/platform-express';
import { RESTAP_MIGRATIONS } from 'nestjs-restap';
import { boot } from './support/boot';
import { FixtureDatabase, openFixtureDatabase } from './support/fixture-database';
import { AsyncConfigAppModule, Variant } from './fixtures/async-config/async-config.app';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

interface Served {
  bytes: Buffer;
  etag: string | null;
  routes: string[];
}

/** Every Express layer: route handlers with their methods, and middleware by name, in order. */
function routesOf(app: NestExpressApplication): string[] {
  const router = app.getHttpAdapter().getInstance().router as { stack: Array<{ name: string; route?: { path: string; methods: object } }> };
  return router.stack.map((l) => (l.route ? `${Object.keys(l.route.methods).join(',').toUpperCase()} ${l.route.path}` : `use ${l.name}`));
}

describe('forRootAsync registers exactly what forRoot registers', () => {
  let db: FixtureDatabase;
  const served: Partial<Record<Variant, Served>> = {};
  const variants: Variant[] = ['forRoot', 'forRootAsync useFactory', 'forRootAsync useClass'];

  beforeAll(async () => {
    db = await openFixtureDatabase();
    for (const variant of variants) {
      const database = db.typeorm({ autoLoadEntities: true, migrations: RESTAP_MIGRATIONS, migrationsRun: true });
      const agent = await boot(AsyncConfigAppModule.register(database, variant));
      try {
        const res = await fetch(`${agent.url}/.well-known/restap.json`);
        served[variant] = { bytes: Buffer.from(await res.arrayBuffer()), etag: res.headers.get('etag'), routes: routesOf(agent.app) };
      } finally {
        await agent.close();
      }
    }
  });
  afterAll(() => db?.close());

  it('forRoot serves a catalog built from the options (the baseline)', () => {
    const catalog = JSON.parse((served.forRoot as Served).bytes.toString('utf8'));
    expect(catalog.agent).toEqual({ name: 'Async Agent', contact: 'ops@example.com' });
    expect(catalog.packages).toEqual([{ name: 'Async SDK', type: 'npm-package', registry: 'npm' }]);
    expect(catalog.capabilities.map((c: { id: string }) => c.id)).toContain('notes.add');
  });

  it.each(['forRootAsync useFactory', 'forRootAsync useClass'] as const)('%s serves the same catalog, byte for byte, with the same ETag', (variant) => {
    const expected = served.forRoot as Served;
    const actual = served[variant] as Served;
    expect(actual.bytes.toString('utf8')).toBe(expected.bytes.toString('utf8'));
    expect(actual.etag).toBe(expected.etag);
  });

  it.each(['forRootAsync useFactory', 'forRootAsync useClass'] as const)('%s registers the same routes and middleware, in the same order', (variant) => {
    expect((served[variant] as Served).routes).toEqual((served.forRoot as Served).routes);
    expect((served.forRoot as Served).routes).toEqual(expect.arrayContaining(['POST /notes', 'POST /talk', 'GET /news']));
  });
});
