import { INestApplication, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { InvalidRequestException, RestapExceptionFilter } from 'nestjs-restap';
import { AGENT_INFO, AppModule } from './app.module';
import type { SampleConfig } from './sample.config';

/** Creates the sample app with its global pipe, error shape and Swagger UI; does not listen. */
export async function createSampleApp(config: SampleConfig, options: { logger?: false | Array<'log' | 'error' | 'warn'> } = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), {
    logger: options.logger ?? ['log', 'error', 'warn'],
  });
  configureSampleApp(app);
  return app;
}

/** The sample's own app-wide settings: validation errors and every other error in the RESTAP JSON shape. */
export function configureSampleApp(app: INestApplication): void {
  app.enableShutdownHooks();
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
  SwaggerModule.setup('docs', app, document);
}
