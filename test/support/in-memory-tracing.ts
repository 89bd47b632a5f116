import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

// Test support for the telemetry specs: the OTel SDK with its
// in-memory exporter, registered globally for one describe block.

export const TRACE = '0af7651916cd43dd8448eb211c80319c';
export const PARENT = 'b7ad6b7169203331';

/** A response as far as a door span reads it: `close`, its status, whether it finished. */
export function fakeResponse(): ServerResponse & EventEmitter {
  return Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true }) as unknown as ServerResponse & EventEmitter;
}

export const fakeRequest = (headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): IncomingMessage =>
  ({ headers, method: 'POST', ...extra }) as unknown as IncomingMessage;

/** Registers a tracer provider with an in-memory exporter around the describe block; reset before each test. */
export function useInMemoryTracing(): { exporter: InMemorySpanExporter; only: () => ReadableSpan } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });
  beforeEach(() => exporter.reset());
  const only = (): ReadableSpan => {
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    return spans[0];
  };
  return { exporter, only };
}
