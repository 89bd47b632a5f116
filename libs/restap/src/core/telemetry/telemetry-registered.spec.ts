import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { telemetryRegistered } from './restap.telemetry';

// Its own file: registering a tracer provider binds the module's tracer to it for the file's life.
describe('telemetryRegistered(): whether a request path may skip OpenTelemetry calls', () => {
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
