import { Controller, Get, Injectable, Module, type DynamicModule } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { RESTAP_MIGRATIONS, RestapModule, Talk } from 'nestjs-restap';
import { DataSource } from 'typeorm';
import type { RunningApp } from '../support/sample-app';
import { boot } from './support/boot';
import { FixtureDatabase, openFixtureDatabase } from './support/fixture-database';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

/** The host's own route on its default DataSource, which has no RESTAP tables. */
@Controller('host')
class HostController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get('database')
  async database(): Promise<{ name: string }> {
    const [row] = (await this.dataSource.query('SELECT current_database() AS name')) as Array<{ name: string }>;
    return row;
  }
}

@Injectable()
class Brain {
  @Talk()
  answer(): string {
    return 'stored in the agent database';
  }
}

type Registration = 'forRoot' | 'forRootAsync';

function hostModule(host: FixtureDatabase, agent: FixtureDatabase, registration: Registration): DynamicModule {
  const options = { agent: { name: 'Two databases' }, talk: { sessions: true } };
  @Module({})
  class HostModule {}
  return {
    module: HostModule,
    imports: [
      host.typeorm({ entities: [] }),
      agent.typeorm({ autoLoadEntities: true, migrations: RESTAP_MIGRATIONS, migrationsRun: true }, 'agent'),
      registration === 'forRoot'
        ? RestapModule.forRoot({ ...options, dataSource: 'agent' })
        : RestapModule.forRootAsync({ dataSource: 'agent', useFactory: () => options }),
    ],
    controllers: [HostController],
    providers: [Brain],
  };
}

const countOf = async (db: FixtureDatabase, table: string): Promise<number> =>
  Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0].n);

describe.each(['forRoot', 'forRootAsync'] as const)(
  'RestapModule.%s({ dataSource: name }): the RESTAP tables live in a named DataSource (as @nestjs/typeorm connection names)',
  (registration) => {
    let host: FixtureDatabase;
    let agentDb: FixtureDatabase;
    let app: RunningApp;

    beforeAll(async () => {
      host = await openFixtureDatabase();
      agentDb = await openFixtureDatabase();
      app = await boot(hostModule(host, agentDb, registration));
    });
    afterAll(async () => {
      await app?.close();
      await host?.close();
      await agentDb?.close();
    });

    it('starts although the default DataSource has no RESTAP tables (the startup check reads the named one)', async () => {
      const tables = await host.query<{ name: string }>(`SELECT to_regclass('restap_news')::text AS name`);
      expect(tables).toEqual([{ name: null }]);
      expect((await fetch(`${app.url}/host/database`)).status).toBe(200);
    });

    it('a /news item and a /talk turn are stored in the named DataSource, nothing in the default one', async () => {
      const posted = await fetch(`${app.url}/news`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'note', message: 'kept apart' }),
      });
      expect(posted.status).toBe(200);
      const talk = await fetch(`${app.url}/talk`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"hi"}' });
      expect(await talk.json()).toMatchObject({ reply: 'stored in the agent database' });
      expect(await countOf(agentDb, 'restap_news')).toBe(1);
      const roles = await agentDb.query<{ role: string }>('SELECT role FROM restap_turns ORDER BY id');
      expect(roles.map((r) => r.role)).toEqual(['user', 'assistant']);
      const items = await (await fetch(`${app.url}/news`)).json();
      expect(items.items).toEqual([expect.objectContaining({ type: 'note', message: 'kept apart' })]);
    });
  },
);
