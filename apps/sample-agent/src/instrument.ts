// Imported first by main.ts: the OpenTelemetry SDK must patch http, express and pg before they load.
import { startSampleTelemetry } from './telemetry/sample.telemetry';

startSampleTelemetry();
