'use strict';
/**
 * `node -r bench/lib/tracing-preload.js`: the talk-traced kind of bench:instructions. Registers a
 * tracer provider (`@opentelemetry/sdk-trace-base`'s BasicTracerProvider, with the async-hooks
 * context manager and the W3C propagator, as `NodeTracerProvider.register()` does) whose one span
 * processor drops every ended span: the module's spans are recorded (attributes, parents, ends)
 * and never exported, and no instrumentation patches http, express or pg. What the module's own
 * tracing costs a request once a host turns tracing on, apart from any exporter.
 */
const { context, propagation, trace } = require('@opentelemetry/api');
const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
const { W3CTraceContextPropagator } = require('@opentelemetry/core');
const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base');

const dropped = { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} };
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [dropped] }));
