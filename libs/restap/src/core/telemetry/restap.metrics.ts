import { createNoopMeter, metrics, type Counter, type Histogram, type Meter, type MeterProvider, type ObservableResult } from '@opentelemetry/api';
import { ATTR, METRIC, TELEMETRY_SCOPE } from './telemetry.names';

// The module's metrics (docs/observability.md, "Metrics"). Spans are in restap.telemetry.ts.

export interface Instruments {
  provider: MeterProvider;
  meter: Meter;
  /** False while no meter provider is registered: nothing is timed or recorded. */
  enabled: boolean;
  tokenUsage: Histogram;
  operationDuration: Histogram;
  turnDuration: Histogram;
  toolDuration: Histogram;
  newsAppended: Counter;
  rateLimitRefusals: Counter;
}

let instruments: Instruments | undefined;

/** Bucket boundaries the GenAI semantic conventions advise for durations (s) and token counts. */
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

/** A gauge read at each collection (open streams, held polls). */
interface GaugeReader {
  name: string;
  description: string;
  /** undefined once its owner is gone: the gauge is dropped. */
  read: () => number | undefined;
}

/** The gauges registered by the module's services, made again with the instruments. */
const gauges = new Set<GaugeReader>();

/**
 * The module's instruments, made on the meter provider registered now. The metrics API has no
 * proxy (a meter taken before the host registers its provider stays a no-op), so they are made
 * again when the global provider changes.
 */
export function meters(): Instruments {
  const provider = metrics.getMeterProvider();
  if (instruments?.provider === provider) return instruments;
  const meter = provider.getMeter(TELEMETRY_SCOPE);
  instruments = {
    provider,
    meter,
    enabled: meter !== createNoopMeter(),
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, { unit: '{token}', description: 'Tokens used per model call, by gen_ai.token.type (input, output).', advice: { explicitBucketBoundaries: TOKEN_BUCKETS } }),
    operationDuration: meter.createHistogram(METRIC.operationDuration, { unit: 's', description: 'Duration of each model call (gen_ai.operation.name chat).', advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    turnDuration: meter.createHistogram(METRIC.turnDuration, { unit: 's', description: 'Duration of a /talk turn (any door), by restap.turn.status.', advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    toolDuration: meter.createHistogram(METRIC.toolDuration, { unit: 's', description: 'Duration of a capability call as a tool, by gen_ai.tool.name and error.type.', advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    newsAppended: meter.createCounter(METRIC.newsAppended, { unit: '{item}', description: 'News items stored, by restap.news.source (client: POST /news, agent: publish()).' }),
    rateLimitRefusals: meter.createCounter(METRIC.rateLimitRefusals, { unit: '{request}', description: 'Requests refused with 429 by the rate limit, by restap.rate_limit.bucket.' }),
  };
  for (const gauge of gauges) observe(meter, gauge);
  return instruments;
}

function observe(meter: Meter, gauge: GaugeReader): void {
  meter.createObservableGauge(gauge.name, { description: gauge.description }).addCallback((result: ObservableResult) => {
    const value = gauge.read();
    if (value === undefined) gauges.delete(gauge);
    else result.observe(value);
  });
}

/**
 * Reports `read(owner)` as an observable gauge, read at each collection (nothing between), for as
 * long as `owner` lives: the gauge holds it weakly, so an app that is closed and collected stops
 * reporting without a hook (its last values still reach the final export on shutdown).
 */
export function observeGauge<T extends object>(name: string, description: string, owner: T, read: (owner: T) => number): void {
  const ref = new WeakRef(owner);
  const gauge: GaugeReader = {
    name,
    description,
    read: () => {
      const current = ref.deref();
      return current === undefined ? undefined : read(current);
    },
  };
  gauges.add(gauge);
  observe(meters().meter, gauge);
}

/** Counts a stored news item (`restap.news.appended`). */
export function countNewsAppended(source: 'client' | 'agent'): void {
  const m = meters();
  if (m.enabled) m.newsAppended.add(1, { [ATTR.restapNewsSource]: source });
}

/** Counts a 429 from the rate limit (`restap.rate_limit.refusals`). */
export function countRateLimitRefusal(bucket: string): void {
  const m = meters();
  if (m.enabled) m.rateLimitRefusals.add(1, { [ATTR.restapRateLimitBucket]: bucket });
}


export const seconds = (startedAt: number): number => (performance.now() - startedAt) / 1000;

/** Now, for a duration metric; 0 (no clock read) while metrics are off. */
export const startClock = (m: Instruments): number => (m.enabled ? performance.now() : 0);
