import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { listen, type RunningApp } from '../../support/sample-app';

type Configure = (app: INestApplication) => void;

/** Creates `module` as a real Express app, applies `configure` (prefix, versioning…) and listens on a free loopback port. */
export async function boot(module: unknown, configure: Configure = () => undefined): Promise<RunningApp> {
  const app = await NestFactory.create<NestExpressApplication>(module as never, { logger: false, abortOnError: false });
  configure(app);
  return listen(app);
}

/** The error that stops `module` from starting (creation or init), or undefined when it starts. */
export async function bootError(module: unknown, configure: Configure = () => undefined): Promise<Error | undefined> {
  let app: NestExpressApplication | undefined;
  try {
    app = await NestFactory.create<NestExpressApplication>(module as never, { logger: false, abortOnError: false });
    configure(app);
    await app.init();
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    await app?.close().catch(() => undefined);
  }
}
