import type { IncomingMessage } from 'node:http';
import type { Span } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { redactUrl } from '../http/access-log.middleware';

/** The service name when `OTEL_SERVICE_NAME` is not set. */
export const DEFAULT_SERVICE_NAME = 'restap-sample-agent';

/** The SDK the sample started, if any: flushed and stopped when the app shuts down. */
let running: NodeSDK | undefined;

/**
 * True when the environment asks for telemetry: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * or the traces-only one) is set and `OTEL_SDK_DISABLED` is not `true`.
 */
export function telemetryRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Starts the OpenTelemetry Node SDK when the environment asks for it (see `telemetryRequested`).
 * Everything else comes from the standard variables, read by the SDK itself: the exporter
 * (`OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`, default `otlp`), its protocol
 * (`OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf` by default, `http/json`, `grpc`), headers,
 * `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, sampling. The http, express and pg
 * instrumentations are on; incoming URLs are recorded with their query values redacted (a
 * `session_id` may be one). Must run before express, http and pg are loaded: `main.ts` imports
 * `instrument.ts` first. The SDK and its instrumentations are loaded only then: a sample without
 * telemetry does not pay for loading them at start.
 *
 * @example
 * OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 OTEL_EXPORTER_OTLP_PROTOCOL=http/json npm start
 */
export function startSampleTelemetry(env: NodeJS.ProcessEnv = process.env): NodeSDK | undefined {
  if (running || !telemetryRequested(env)) return running;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const sdk = new NodeSDK({
    ...(env.OTEL_SERVICE_NAME?.trim() ? {} : { serviceName: DEFAULT_SERVICE_NAME }),
    instrumentations: [
      new HttpInstrumentation({ requestHook: redactIncomingUrl }),
      new ExpressInstrumentation(),
      // Statements without their values (the default): a stored message is a value. No span per pool checkout
      // (`pg-pool.connect`, two or three a turn, each as costly to record and export as a statement's): a wait for a
      // connection still shows as the gap before the statement's span, and in the pool's metrics, still recorded.
      // Statements outside any request (the replicas' heartbeat and sweeps, every few seconds) would each be a trace
      // of one span: not recorded (their failures are logged).
      new PgInstrumentation({ ignoreConnectSpans: true, requireParentSpan: true }),
    ],
  });
  sdk.start();
  running = sdk;
  return sdk;
}

/** Flushes and stops the SDK the sample started, if any. */
export async function stopSampleTelemetry(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown();
}

/** URL attributes of an incoming request (old and stable HTTP semconv), query values redacted. */
function redactIncomingUrl(span: Span, request: unknown): void {
  const url = (request as IncomingMessage).url;
  if (typeof url !== 'string' || !('socket' in (request as object)) || !('headers' in (request as object))) return;
  if (!url.includes('?')) return;
  const redacted = redactUrl(url);
  const q = redacted.indexOf('?');
  span.setAttribute('http.target', redacted);
  span.setAttribute('url.query', redacted.slice(q + 1));
  const host = (request as IncomingMessage).headers.host;
  if (host) span.setAttribute('http.url', `http://${host}${redacted}`);
}
