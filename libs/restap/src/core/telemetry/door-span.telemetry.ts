import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context } from '@opentelemetry/api';
import { ATTR, TELEMETRY_SCOPE } from './telemetry.names';

/** The module's tracer (see restap.telemetry.ts): a proxy following whichever provider the host registers. */
const tracer = trace.getTracer(TELEMETRY_SCOPE);

/** Where @opentelemetry/api 1.x keeps what a host registers with it (tracer provider, context manager, propagator). */
const OTEL_API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * False while the host has registered no tracer provider, context manager and propagator with
 * @opentelemetry/api: every call into it is then a no-op (a non-recording span, the context as it
 * was), so a request path may skip them. It reads what the API reads at each of its calls, and is
 * read per request: an SDK registered later is seen at its first request.
 */
export function telemetryRegistered(): boolean {
  const api = (globalThis as { [OTEL_API_GLOBAL]?: { trace?: unknown; context?: unknown; propagation?: unknown } })[OTEL_API_GLOBAL];
  return api !== undefined && (api.trace !== undefined || api.context !== undefined || api.propagation !== undefined);
}

/** A door request's server span: its name and attributes, and where it may take its parent from. */
export interface DoorSpanOf {
  readonly name: string;
  readonly attributes: Attributes;
  /** A `_meta` (MCP, SEP-414) or metadata object (A2A) that may carry `traceparent`/`tracestate`: it wins over the HTTP headers. */
  readonly carrier?: Record<string, unknown>;
}

/**
 * Opens the server span of one door request and ends it when the response closes, with its HTTP
 * status (5xx and a client gone before the end are errors). Its parent is the trace context in
 * the span's `carrier` if it has one, else the span already active (the host's HTTP instrumentation),
 * else the request's `traceparent` header. Returns the context to run the rest of the request in
 * (`runInDoor`, `bindToDoor`), or `undefined` while nothing at all is registered with
 * @opentelemetry/api: every call would then be a no-op, and `describe` is not called.
 * No attribute may hold a session id, a credential or request text: `describe` returns routes,
 * method names and tool names only.
 *
 * @example
 * const door = openDoorSpan(req, res, describeTalk, route);
 * runInDoor(door, () => handle(req, res));
 */
export function openDoorSpan<Req extends IncomingMessage, T>(req: Req, res: ServerResponse, describe: (req: Req, arg: T) => DoorSpanOf, arg: T): Context | undefined {
  if (!telemetryRegistered()) return undefined;
  const { name, attributes, carrier } = describe(req, arg);
  const parentContext = parentOf(req.headers, carrier);
  const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext);
  // Not recording (no provider, or sampled out): the caller's context, or the one its headers carry, is all there is.
  if (!span.isRecording()) return parentContext;
  const spanContext = trace.setSpan(parentContext, span);
  res.once('close', () => {
    const status = res.statusCode;
    span.setAttribute(ATTR.httpResponseStatusCode, status);
    if (status >= 500) {
      span.setAttribute(ATTR.errorType, String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (!res.writableFinished) {
      span.setAttribute(ATTR.errorType, 'client_disconnected');
    }
    span.end();
  });
  return spanContext;
}

/** Runs `run` in a door's context from `openDoorSpan`; at once when there is none. */
export function runInDoor(door: Context | undefined, run: () => void): void {
  if (door === undefined) run();
  else context.with(door, run);
}

/** `f` bound to a door's context from `openDoorSpan` (for continuations on socket events); `f` itself when there is none. */
export function bindToDoor<F extends (...args: never[]) => unknown>(door: Context | undefined, f: F): F {
  return door === undefined ? f : context.bind(door, f);
}

function parentOf(headers: IncomingHttpHeaders, carrier?: Record<string, unknown>): Context {
  const active = context.active();
  if (carrier && typeof carrier.traceparent === 'string') return propagation.extract(active, carrier, STRING_GETTER);
  if (trace.getSpan(active)) return active;
  return propagation.extract(active, headers);
}

/** Reads string values only: a `_meta` object holds anything the client sent. */
const STRING_GETTER = {
  keys: (carrier: Record<string, unknown>): string[] => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string): string | undefined => (typeof carrier[key] === 'string' ? (carrier[key] as string) : undefined),
};
