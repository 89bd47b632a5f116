import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { createDatabaseOptions, DatabaseTarget } from './database.options';

const DATABASE_HANDLE = Symbol('DATABASE_HANDLE');
type Handle = Awaited<ReturnType<typeof createDatabaseOptions>>;

/** Closes the embedded database after TypeORM's pool, so its files are left consistent. */
@Injectable()
class DatabaseCloser implements OnApplicationShutdown {
  constructor(@Inject(DATABASE_HANDLE) private readonly handle: Handle, private readonly dataSource: DataSource) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.handle.close();
  }
}

@Module({})
class DatabaseHandleModule {
  static register(target: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseHandleModule,
      providers: [{ provide: DATABASE_HANDLE, useFactory: () => createDatabaseOptions(target) }],
      exports: [DATABASE_HANDLE],
    };
  }
}

/** TypeORM on the given PostgreSQL server, or on the embedded PGlite database. */
@Module({})
export class DatabaseModule {
  static forRoot(target: DatabaseTarget): DynamicModule {
    const handle = DatabaseHandleModule.register(target);
    return {
      module: DatabaseModule,
      imports: [
        handle,
        TypeOrmModule.forRootAsync({ imports: [handle], inject: [DATABASE_HANDLE], useFactory: (h: Handle) => h.options }),
      ],
      providers: [DatabaseCloser],
    };
  }
}
