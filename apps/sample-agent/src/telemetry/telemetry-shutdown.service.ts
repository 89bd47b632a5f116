import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { stopSampleTelemetry } from './sample.telemetry';

/** Exports the spans and metrics still buffered when the app shuts down (SIGTERM, `app.close()`). */
@Injectable()
export class TelemetryShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await stopSampleTelemetry();
  }
}
