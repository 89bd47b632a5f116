import { ValidationPipe, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { InvalidRequestException, RestapExceptionFilter, RestapExpressAdapter } from 'nestjs-restap';
import { AGENT_INFO, AppModule } from './app.module';
import type { SampleConfig } from './sample.config';
import { accessLog } from './http/access-log.middleware';
import { SwaggerDocs } from './docs/swagger-docs';

/** Creates the sample app with its global pipe, error shape and Swagger UI; does not listen. */
export async function createSampleApp(config: SampleConfig, options: { logger?: false | Array<'log' | 'error' | 'warn'> | LoggerService } = {}): Promise<NestExpressApplication> {
  // Requests and responses built on Express's prototypes: Express's per-request prototype swap is a no-op.
  const adapter = new RestapExpressAdapter();
  // First in line, so it also sees what RESTAP's own middleware answers (415, 413, 503 while draining).
  if (config.accessLog) adapter.use(accessLog());
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), adapter, {
    logger: options.logger ?? ['log', 'error', 'warn'],
  });
  // Behind a reverse proxy (the replicas set-up), rate limits and stream caps key on the client's address.
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);
  configureSampleApp(app);
  return app;
}

/**
 * The sample's own app-wide settings: validation errors and every other error in the RESTAP JSON
 * shape, and shutdown on SIGTERM/SIGINT: RESTAP drains its open streams, the pool closes, and
 * the process exits 0.
 */
export function configureSampleApp(app: NestExpressApplication): void {
  // No `X-Powered-By: Express` on any answer: the stack is nobody's business.
  app.disable('x-powered-by');
  app.enableShutdownHooks([], { useProcessExit: true });
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      transform: true,
      exceptionFactory: (errors) =>
        new InvalidRequestException(
          errors.map((e) => `${e.property}: ${Object.values(e.constraints ?? { invalid: 'is invalid' }).join(', ')}`).join('; '),
        ),
    }),
  );
  app.useGlobalFilters(new RestapExceptionFilter());
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder().setTitle(AGENT_INFO.name).setDescription(AGENT_INFO.description).setVersion('1.0').build(),
  );
  // Served at /docs once the app's routes are registered (see SwaggerDocs).
  app.get(SwaggerDocs).serve(() => SwaggerModule.setup('docs', app, document));
}
