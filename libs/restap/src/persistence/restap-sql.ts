import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InjectRestapDataSource } from './restap-data-source';
import { RESTAP_OPTIONS } from '../restap.constants';
import type { ResolvedRestapCoreOptions } from '../interfaces/restap-options.interface';
import { randomToken } from '../sessions/random-token';
import { RestapQueryError } from './restap-query.error';
import { isStorageError } from './storage-errors';

/** A statement of the module's hot path, prepared once per pooled connection under `name`. */
export interface RestapStatement {
  readonly name: string;
  readonly text: string;
  /** What it does, for the log (`news.append`): a failure is logged by purpose, never with its values. */
  readonly purpose: string;
}

/** Names a statement after its text, so two texts can never share a name on one connection. */
export function statement(text: string, purpose?: string): RestapStatement {
  const name = `restap_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  return { name, text, purpose: purpose ?? name };
}

/** The slice of node-postgres' Pool used here (TypeORM's PostgresDriver keeps it as `master`). */
interface PgPool {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const rowsOf = (result: { rows: unknown[] }): unknown[] => result.rows;

/** A connection-level failure's own message (no request data in it); else only the code. */
const CONNECTION_MESSAGE = /^(connect |read |write )?(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|EAI_AGAIN)|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Cannot use a pool after calling end|terminating connection|Query read timeout/i;

/**
 * The error's kind for the log. An error PostgreSQL reported (a severity and a SQLSTATE, as on
 * node-postgres' `DatabaseError`) is a `DatabaseError` whatever its class is called: PGlite bundles
 * a minified copy of that class, whose name reads `ue` or `O`. Else the class's name (node-postgres
 * names its errors 'error'; their class says more).
 */
export function errorKind(error: unknown): string {
  const e = error as { severity?: unknown; code?: unknown; name?: unknown } | undefined;
  if (typeof e?.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return 'DatabaseError';
  return (error as object | undefined)?.constructor?.name || (typeof e?.name === 'string' ? e.name : 'Error');
}

/**
 * Runs the module's statements on the host's TypeORM DataSource, on the pg pool TypeORM itself
 * opened (same connections, limits and timeouts).
 *
 * By default each goes as a named prepared statement: PostgreSQL parses and plans it once per
 * connection instead of once per request (planning probes the ts index's end every time; the
 * server CPU it saves: BENCHMARKS.md, "Measurements behind the code"). `storage.preparedStatements:
 * false` (for a pooler that cannot keep prepared statements, such as PgBouncer before 1.21 in
 * transaction mode) sends them unnamed.
 *
 * Parameter values are request data (items, messages, feed keys, idempotency keys): they never
 * reach a log, whatever the host's TypeORM `logging` setting. TypeORM's logger sees each
 * statement's text only; a failure is logged here as purpose, error class, code and a correlation
 * id, and thrown as a {@link RestapQueryError} carrying the same and nothing else.
 */
@Injectable()
export class RestapSql {
  private readonly logger = new Logger('Restap');

  constructor(
    @InjectRestapDataSource() private readonly dataSource: DataSource,
    @Inject(RESTAP_OPTIONS) private readonly options: ResolvedRestapCoreOptions,
  ) {}

  query<T>(stmt: RestapStatement, params: unknown[]): Promise<T[]> {
    const pool = this.pool();
    if (!pool) return this.queryDataSource<T>(stmt, params);
    // The pool's promise, taken on by one then(): no async frame of its own (each turn sends two).
    try {
      this.dataSource.logger.logQuery(stmt.text);
    } catch (error) {
      return Promise.reject(error);
    }
    try {
      const config = this.options.storage.preparedStatements ? { name: stmt.name, text: stmt.text, values: params } : { text: stmt.text, values: params };
      return pool.query(config).then(rowsOf, (error: unknown) => {
        throw this.failure(stmt, error);
      }) as Promise<T[]>;
    } catch (error) {
      return Promise.reject(this.failure(stmt, error));
    }
  }

  /** `query` through TypeORM's own `query()`, for a driver that is not node-postgres. */
  private async queryDataSource<T>(stmt: RestapStatement, params: unknown[]): Promise<T[]> {
    this.dataSource.logger.logQuery(stmt.text);
    try {
      return (await this.dataSource.query(stmt.text, params)) as T[];
    } catch (error) {
      throw this.failure(stmt, error);
    }
  }

  /** Logs a failed statement without its values and returns the error to throw in its place. */
  private failure(stmt: RestapStatement, error: unknown): RestapQueryError {
    const e = error as { name?: unknown; code?: unknown; message?: unknown; driverError?: { code?: unknown } } | undefined;
    const rawCode = e?.code ?? e?.driverError?.code;
    const code = typeof rawCode === 'string' && /^[A-Z0-9_]{1,32}$/.test(rawCode) ? rawCode : undefined;
    const kind = errorKind(error);
    const ref = randomToken(6);
    const unavailable = isStorageError(error);
    const own = typeof e?.message === 'string' && CONNECTION_MESSAGE.test(e.message) ? `: ${e.message.slice(0, 200)}` : '';
    const message = `Statement ${stmt.purpose} failed with ${kind}${code ? ` ${code}` : ''}${own} (ref ${ref})`;
    this.logger.error(message);
    return new RestapQueryError(stmt.purpose, code, ref, unavailable, message);
  }

  /**
   * TypeORM's pg pool when the driver is node-postgres (PostgreSQL or PGlite through its adapter),
   * else null. Read on every call, never kept: a DataSource destroyed and initialized again has a
   * new pool.
   */
  private pool(): PgPool | null {
    const master = (this.dataSource.driver as { master?: Partial<PgPool> }).master;
    return typeof master?.query === 'function' ? (master as PgPool) : null;
  }
}
