import { Controller, DynamicModule, Get, Injectable, Module, Post, Type } from '@nestjs/common';
import { Capability, CapabilityOptions, RESTAP_MIGRATIONS, RestapBootstrapError, RestapModule, RestapModuleOptions, Talk } from 'nestjs-restap';
import { bootError } from './support/boot';
import { FixtureDatabase, openFixtureDatabase } from './support/fixture-database';

// Jest reads testTimeout only from the top-level config, not per project; a fresh PGlite takes 4–15 s.
jest.setTimeout(120_000);

@Controller('text')
class TextController {
  @Post('echo')
  @Capability({ id: 'text.echo', title: 'Echo' })
  echo(): string {
    return 'ok';
  }
}

@Controller('copy')
class CopyController {
  @Post()
  @Capability({ id: 'text.echo', title: 'Echo again' })
  copy(): string {
    return 'ok';
  }
}

@Controller('bad')
class BadIdController {
  @Get()
  @Capability({ id: 'Text Echo!', title: 'Spaces are not allowed' })
  bad(): string {
    return 'ok';
  }
}

@Controller('helper')
class NotARouteController {
  @Get()
  list(): string[] {
    return [];
  }

  @Capability({ id: 'helper.format', title: 'Not a route' })
  format(): string {
    return 'x';
  }
}

/** What a JavaScript caller (or a cast) gets past the closed CapabilityOptions type. */
const untyped = (options: Record<string, unknown>): CapabilityOptions => options as unknown as CapabilityOptions;

@Controller('typo')
class TypoController {
  @Get()
  @Capability(untyped({ id: 'typo.get', title: 'Typo', ouput: String }))
  get(): string {
    return 'x';
  }
}

@Controller('old-extra')
class OldExtraController {
  @Get()
  @Capability(untyped({ id: 'old.extra', title: 'Pass-through at the top level', pricing: { per_call_usd: 1 } }))
  get(): string {
    return 'x';
  }
}

@Controller('reserved')
class ReservedExtraController {
  @Get()
  @Capability({ id: 'reserved.extra', title: 'Moves itself', extra: { endpoint: '/elsewhere' } })
  get(): string {
    return 'x';
  }
}

@Injectable()
class FirstBrain {
  @Talk()
  answer(): string {
    return 'one';
  }
}

@Injectable()
class SecondBrain {
  @Talk()
  reply(): string {
    return 'two';
  }
}

const AGENT = { agent: { name: 'Startup fixture' }, talk: false as const, news: false as const };

describe('Startup fails loudly, with the fix in the message, on each misuse', () => {
  let db: FixtureDatabase;
  const app = (options: Partial<RestapModuleOptions>, controllers: Type[] = [], providers: Type[] = [], migrate = false): DynamicModule => {
    @Module({})
    class FixtureModule {}
    return {
      module: FixtureModule,
      imports: [
        db.typeorm({ autoLoadEntities: true, migrations: RESTAP_MIGRATIONS, migrationsRun: migrate }),
        RestapModule.forRoot({ ...AGENT, ...options } as RestapModuleOptions),
      ],
      controllers,
      providers,
    };
  };

  beforeAll(async () => {
    db = await openFixtureDatabase();
    // The control case: the same fixture without a mistake starts (and creates the tables).
    expect(await bootError(app({}, [TextController], [FirstBrain], true))).toBeUndefined();
  });
  afterEach(() => db.destroyAll());
  afterAll(() => db?.close());

  it('a capability id declared twice names both Class.method places', async () => {
    const error = await bootError(app({}, [TextController, CopyController]));
    expect(error).toBeInstanceOf(RestapBootstrapError);
    expect(error?.message).toBe(
      "Duplicate capability id 'text.echo': declared on TextController.echo and on CopyController.copy. Capability ids must be unique.",
    );
  });

  it('a capability id that is not a dotted identifier is refused, with an example of one', async () => {
    const error = await bootError(app({}, [BadIdController]));
    expect(error?.message).toMatch(/^@Capability\(\) on BadIdController\.bad has id "Text Echo!", which is not a dotted identifier/);
    expect(error?.message).toContain("e.g. 'text.echo'");
  });

  it('@Capability() on a method that is not a route handler is refused', async () => {
    const error = await bootError(app({}, [NotARouteController]));
    expect(error?.message).toBe(
      "@Capability({ id: 'helper.format' }) on NotARouteController.format is not on a route handler: add @Get(), @Post() or another route decorator, or remove @Capability().",
    );
  });

  it('an unknown @Capability() option (a typo, from JavaScript or a cast) is refused, with the option it resembles', async () => {
    const error = await bootError(app({}, [TypoController]));
    expect(error?.message).toBe(
      "@Capability({ id: 'typo.get' }) on TypoController.get has an unknown option 'ouput' (did you mean 'output'?). Fields to copy into the catalog entry go under extra, e.g. extra: { ouput: … }.",
    );
  });

  it('a pass-through field at the top level (the shape before 0.2) is refused and pointed to extra', async () => {
    const error = await bootError(app({}, [OldExtraController]));
    expect(error?.message).toBe(
      "@Capability({ id: 'old.extra' }) on OldExtraController.get has an unknown option 'pricing'. Fields to copy into the catalog entry go under extra, e.g. extra: { pricing: … }.",
    );
  });

  it('extra cannot replace a derived field such as endpoint', async () => {
    const error = await bootError(app({}, [ReservedExtraController]));
    expect(error?.message).toBe(
      "@Capability({ id: 'reserved.extra' }) on ReservedExtraController.get: extra cannot set endpoint: the catalog derives them (set id and title as options; method and endpoint come from the route).",
    );
  });

  it('two @Talk() methods are refused, naming both', async () => {
    const error = await bootError(app({}, [], [FirstBrain, SecondBrain]));
    expect(error?.message).toBe('@Talk() is on both FirstBrain.answer and SecondBrain.reply: exactly one method may answer /talk.');
  });

  it('a missing agent.name is refused', async () => {
    const error = await bootError(app({ agent: { description: 'no name' } as never }));
    expect(error?.message).toBe('RestapModule option agent.name is required: a non-empty string naming the agent in the catalog.');
  });

  it("a news.scope other than 'global' or 'session' is refused", async () => {
    const error = await bootError(app({ news: { scope: 'team' as never } }));
    expect(error?.message).toBe(`RestapModule option news.scope must be 'global' or 'session', got "team".`);
  });

  it('a packages entry without name or type is refused (spec, "Optional Packages")', async () => {
    const error = await bootError(app({ packages: [{ name: 'SDK', type: 'npm-package' }, { name: 'No type' } as never] }));
    expect(error?.message).toBe('RestapModule option packages[1] needs string "name" and "type" (spec, "Optional Packages").');
  });

  it('missing RESTAP tables (migrations never run) stop startup and say how to add them', async () => {
    const empty = await openFixtureDatabase();
    try {
      @Module({ imports: [empty.typeorm({ autoLoadEntities: true }), RestapModule.forRoot(AGENT)], controllers: [TextController] })
      class NoMigrationsModule {}
      const error = await bootError(NoMigrationsModule);
      expect(error?.message).toBe(
        "RESTAP tables are missing (restap_sessions, restap_turns, restap_news, restap_news_sequences): add RESTAP_MIGRATIONS from 'nestjs-restap' to your DataSource's migrations and run them (migrationsRun: true, or the TypeORM CLI).",
      );
    } finally {
      await empty.close();
    }
  });

  it('a database migrated by an earlier version (tool steps migration not run) stops startup and names the migration', async () => {
    const old = await openFixtureDatabase();
    try {
      @Module({ imports: [old.typeorm({ autoLoadEntities: true, migrations: [RESTAP_MIGRATIONS[0]], migrationsRun: true }), RestapModule.forRoot(AGENT)] })
      class OldMigrationsModule {}
      const error = await bootError(OldMigrationsModule);
      expect(error?.message).toBe(
        "RESTAP migrations are pending (RestapToolSteps1764800000000, RestapA2aTasks1764900000000, RestapReplicas1765000000000, RestapApprovals1765100000000, RestapTalkFrames1765200000000, RestapA2aPushConfigs1765238000000, RestapMcpSessions1765238000001, RestapMcpSessionOwner1765300000000, RestapCapabilityTasks1765300000001): add RESTAP_MIGRATIONS from 'nestjs-restap' to your DataSource's migrations and run them (migrationsRun: true, or the TypeORM CLI).",
      );
    } finally {
      await old.close();
    }
  });
});
