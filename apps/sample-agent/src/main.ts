// First: the OpenTelemetry SDK (when OTEL_EXPORTER_OTLP_ENDPOINT is set) patches http, express and pg before they load.
import './instrument';
import { Logger } from '@nestjs/common';
import { CATALOG_PATH } from 'nestjs-restap';
import { createSampleApp } from './bootstrap';
import { describeDatabase } from './database/database.options';
import { sampleConfigFromEnv } from './sample.config';
import { PLAYGROUND_PATH } from './playground/root.controller';
import { samplePackages } from './sample.packages';

async function main(): Promise<void> {
  const config = sampleConfigFromEnv();
  const app = await createSampleApp(config);
  const host = process.env.HOST || '127.0.0.1';
  const port = Number(process.env.PORT) || 3000;
  await app.listen(port, host);
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const logger = new Logger('SampleAgent');
  logger.log(`Database: ${describeDatabase(config.database)}`);
  logger.log(`Discovery: ${base}${CATALOG_PATH}`);
  if (config.playground !== false) logger.log(`Playground: ${base}/ (${base}${PLAYGROUND_PATH})`);
  logger.log(`Swagger UI: ${base}/docs`);
  if (!samplePackages(config.packagesDir).some((p) => p.package === 'restap-client')) {
    logger.log(`The client tarball is not in ${config.packagesDir}, so the catalog does not advertise it: npm run build (or npm run pack:client -- dist/packages) puts it there.`);
  }
}

main().catch((error: unknown) => {
  // Startup errors are ours (options, decorators, database): their message says what to fix.
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
