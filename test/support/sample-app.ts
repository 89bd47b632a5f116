import type { LoggerService } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { createSampleApp } from '../../apps/sample-agent/src/bootstrap';
import type { SampleConfig } from '../../apps/sample-agent/src/sample.config';
import type { DatabaseTarget } from '../../apps/sample-agent/src/database/database.options';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface RunningApp {
  app: NestExpressApplication;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/** Listens on a free loopback port and returns the base URL. */
export async function listen(app: NestExpressApplication): Promise<RunningApp> {
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/**
 * The real sample agent over real HTTP on the given database. Its log is off unless `logger` is
 * given (a test that provokes errors captures them and asserts they are the expected ones).
 */
export async function startSample(database: DatabaseTarget, overrides: Partial<SampleConfig> = {}, logger: LoggerService | false = false): Promise<RunningApp> {
  const app = await createSampleApp({ database, newsScope: 'global', ...overrides }, { logger });
  return listen(app);
}

/** The sample agent a test file shares: a RunningApp whose fields read the instance started in beforeAll. */
export interface SampleAgentHandle extends RunningApp {
  readonly db: TestDatabase;
}

/**
 * Registers beforeAll/afterAll that run the real sample on a fresh database of its own (dropped
 * afterwards), and returns a handle to it. Call it inside a `describe`.
 *
 * @example
 * const agent = useSampleAgent({ newsScope: 'session' });
 * it('…', async () => { await fetch(`${agent.url}/news`); });
 */
export function useSampleAgent(overrides: Partial<SampleConfig> = {}): SampleAgentHandle {
  let db: TestDatabase | undefined;
  let running: RunningApp | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    running = await startSample(db.target, overrides);
  });
  afterAll(async () => {
    await running?.close();
    await db?.drop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useSampleAgent(): the sample starts in beforeAll; use the handle inside tests.');
    return value;
  };
  return {
    get app() { return started(running).app; },
    get url() { return started(running).url; },
    get db() { return started(db); },
    close: () => started(running).close(),
  };
}
