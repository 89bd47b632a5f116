import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { createSampleApp } from '../../apps/sample-agent/src/bootstrap';
import type { SampleConfig } from '../../apps/sample-agent/src/sample.config';
import type { DatabaseTarget } from '../../apps/sample-agent/src/database/database.options';

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

/** The real sample agent over real HTTP on the given database. */
export async function startSample(database: DatabaseTarget, overrides: Partial<SampleConfig> = {}): Promise<RunningApp> {
  const app = await createSampleApp({ database, newsScope: 'global', ...overrides }, { logger: false });
  return listen(app);
}
