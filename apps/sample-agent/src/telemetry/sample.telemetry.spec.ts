/** Which modules the sample's telemetry file loads, by whether the environment asks for telemetry. */
describe('sample telemetry: the OpenTelemetry SDK is loaded only when asked for (issue 41, cold start)', () => {
  it('importing sample.telemetry and starting it without an OTLP endpoint loads neither the SDK nor its instrumentations', () => {
    const loaded: string[] = [];
    jest.isolateModules(() => {
      for (const name of ['@opentelemetry/sdk-node', '@opentelemetry/instrumentation-http', '@opentelemetry/instrumentation-express', '@opentelemetry/instrumentation-pg']) {
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      }
      const telemetry = require('./sample.telemetry') as typeof import('./sample.telemetry');
      expect(telemetry.startSampleTelemetry({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
      expect(telemetry.telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    });
    expect(loaded).toEqual([]);
  });
});
