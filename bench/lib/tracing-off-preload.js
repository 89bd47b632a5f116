'use strict';
/**
 * `node -r bench/lib/tracing-off-preload.js`: the talk-untraced kind of bench:instructions, the floor of the
 * tracing rows. The module talks to `@opentelemetry/api` only; this turns each call it makes into an
 * empty answer (a tracer whose one span records nothing and is never allocated again, the root
 * context always active, `with` a plain call, extraction a no-op), as if the module had no tracing
 * code: the same turn with tracing off. Against it, the talk kind (the API with no SDK registered)
 * shows what the API's no-op path costs a request, and talk-traced / talk-otel what a provider does.
 */
const api = require('@opentelemetry/api');

const { context, propagation, trace, ROOT_CONTEXT, INVALID_SPAN_CONTEXT } = api;
const OFF_SPAN = Object.freeze({
  spanContext: () => INVALID_SPAN_CONTEXT,
  setAttribute() { return OFF_SPAN; },
  setAttributes() { return OFF_SPAN; },
  addEvent() { return OFF_SPAN; },
  addLink() { return OFF_SPAN; },
  addLinks() { return OFF_SPAN; },
  setStatus() { return OFF_SPAN; },
  updateName() { return OFF_SPAN; },
  end() {},
  isRecording: () => false,
  recordException() {},
});
const OFF_TRACER = Object.freeze({
  startSpan: () => OFF_SPAN,
  startActiveSpan: (name, ...rest) => rest[rest.length - 1](OFF_SPAN),
});

trace.getTracer = () => OFF_TRACER;
trace.getSpan = () => undefined;
trace.getActiveSpan = () => undefined;
trace.setSpan = (ctx) => ctx;
context.active = () => ROOT_CONTEXT;
context.with = (ctx, fn, thisArg, ...args) => fn.call(thisArg, ...args);
context.bind = (ctx, target) => target;
propagation.extract = (ctx) => ctx;
propagation.inject = () => {};
