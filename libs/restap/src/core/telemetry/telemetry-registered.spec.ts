import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { openDoorSpan, telemetryRegistered } from './door-span.telemetry';
import { fakeRequest, fakeResponse, PARENT, TRACE } from '../../../../../test/support/in-memory-tracing';

// Its own file: registering a tracer provider binds the module's tracer to it for the file's life.
describe('telemetryRegistered(): whether a request path may skip OpenTelemetry calls', () => {
  // First: once a tracer provider has been registered, the module's tracer keeps it (the API's proxy caches its delegate).
  it('with a propagator and no tracer provider, a door request runs in the context its traceparent carries (passed on downstream), with no span of its own', () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const res = fakeResponse();
      const door = openDoorSpan(fakeRequest({ traceparent: `00-${TRACE}-${PARENT}-01` }), res, () => ({ name: 'POST /talk', attributes: {} }), undefined);
      expect(door).toBeDefined();
      expect(trace.getSpanContext(door!)).toMatchObject({ traceId: TRACE, spanId: PARENT, isRemote: true });
      expect(res.listenerCount('close')).toBe(0);
    } finally {
      propagation.disable();
    }
  });

  it('is false until a tracer provider, a context manager or a propagator is registered, and follows each', () => {
    expect(telemetryRegistered()).toBe(false);
    const registrations: Array<[() => boolean, () => void]> = [
      [() => context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()), () => context.disable()],
      [() => propagation.setGlobalPropagator(new W3CTraceContextPropagator()), () => propagation.disable()],
      [() => trace.setGlobalTracerProvider(new BasicTracerProvider()), () => trace.disable()],
    ];
    for (const [register, unregister] of registrations) {
      expect(register()).toBe(true);
      expect(telemetryRegistered()).toBe(true);
      unregister();
      expect(telemetryRegistered()).toBe(false);
    }
  });

});
