import { Logger } from '@nestjs/common';
import type { LogLevel, Logger as TypeOrmLogger } from 'typeorm';

/** Longest SQL text quoted in a log line; the statement's start says which one failed. */
const SQL_CHARS = 160;

const oneLine = (sql: string): string => {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > SQL_CHARS ? `${flat.slice(0, SQL_CHARS)}…` : flat;
};

/**
 * TypeORM's log lines through Nest's logger (context `TypeORM`), instead of TypeORM's console
 * logger: they get Nest's format and levels, and go wherever the app's logger goes (nowhere in
 * tests started with `logger: false`, or into a test's capturing logger). Parameters are never
 * written: they hold message texts and news bodies.
 *
 * @example
 * TypeOrmModule.forRoot({ ..., logging: ['error'], logger: new TypeOrmNestLogger(['error']) })
 */
export class TypeOrmNestLogger implements TypeOrmLogger {
  private readonly logger = new Logger('TypeORM');
  private readonly levels: ReadonlySet<LogLevel>;

  constructor(levels: LogLevel[]) {
    this.levels = new Set(levels);
  }

  logQuery(query: string): void {
    if (this.levels.has('query')) this.logger.debug(oneLine(query));
  }

  logQueryError(error: string | Error, query: string): void {
    if (this.levels.has('error')) this.logger.error(`query failed: ${error instanceof Error ? error.message : error} (${oneLine(query)})`);
  }

  logQuerySlow(time: number, query: string): void {
    if (this.levels.has('warn')) this.logger.warn(`slow query (${time} ms): ${oneLine(query)}`);
  }

  logSchemaBuild(message: string): void {
    if (this.levels.has('schema')) this.logger.log(message);
  }

  logMigration(message: string): void {
    if (this.levels.has('migration')) this.logger.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (!this.levels.has(level)) return;
    if (level === 'warn') this.logger.warn(String(message));
    else this.logger.log(String(message));
  }
}
