/**
 * OpenTelemetry's own SDK as a test records with it: an in-memory span exporter and metric reader,
 * and optionally Node's AsyncLocalStorage context manager registered globally (so that "the caller's
 * active span" means something). Every suite that checks spans or metrics starts here.
 */
import { context, type Span, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** A tracer and a meter provider recording in memory, and ways to read what they recorded. */
export interface RecordingTelemetry {
  tracerProvider: BasicTracerProvider;
  meterProvider: MeterProvider;
  /** Every ended span so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Ended spans named `name`. */
  spansNamed(name: string): ReadableSpan[];
  /** The direct children of `parent` among the ended spans. */
  childrenOf(parent: ReadableSpan): ReadableSpan[];
  /** Collects and returns every metric data point so far, by instrument name. */
  metrics(): Promise<Map<string, { attributes: Record<string, unknown>; value: unknown }[]>>;
  /**
   * Every string a span, event or metric carries (names, attributes, event attributes, status
   * messages), for suites proving that no secret is in any of them.
   */
  everyString(): Promise<string[]>;
  /** Forgets recorded spans. */
  reset(): void;
  /** Shuts both providers down. */
  shutdown(): Promise<void>;
}

/** Options of {@link recordingTelemetry}. */
export interface RecordingOptions {
  /** Record nothing: every span is sampled out (what a production sampler does to most spans). */
  sampledOut?: boolean;
}

/** Starts providers that record in memory. */
export function recordingTelemetry(options: RecordingOptions = {}): RecordingTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    ...(options.sampledOut ? { sampler: new AlwaysOffSampler() } : {}),
  });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = () => exporter.getFinishedSpans();
  const metrics = async () => {
    const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
    const byName = new Map<string, { attributes: Record<string, unknown>; value: unknown }[]>();
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        const points = byName.get(metric.descriptor.name) ?? [];
        for (const point of metric.dataPoints)
          points.push({ attributes: point.attributes, value: point.value });
        byName.set(metric.descriptor.name, points);
      }
    }
    return byName;
  };
  return {
    tracerProvider,
    meterProvider,
    spans,
    spansNamed: (name) => spans().filter((span) => span.name === name),
    childrenOf: (parent) =>
      spans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId),
    metrics,
    async everyString() {
      const strings: string[] = [];
      const add = (value: unknown) => {
        if (typeof value === "string") strings.push(value);
        else if (Array.isArray(value)) for (const item of value) add(item);
        else if (value && typeof value === "object")
          for (const entry of Object.entries(value)) add(entry);
      };
      for (const span of spans()) {
        add(span.name);
        add(span.attributes);
        add(span.status.message);
        for (const event of span.events) add([event.name, event.attributes]);
      }
      for (const [name, points] of await metrics()) {
        add(name);
        for (const point of points) add(point.attributes);
      }
      return strings;
    },
    reset: () => exporter.reset(),
    async shutdown() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/**
 * Registers Node's AsyncLocalStorage context manager with the API for the duration of a suite's
 * callback, and runs `work` inside an active span of `tracerProvider` named `name`: the caller's span
 * the SDK's operation spans must be parented on.
 */
export async function insideActiveSpan<T>(
  tracerProvider: BasicTracerProvider,
  name: string,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  try {
    return await tracerProvider.getTracer("test").startActiveSpan(name, async (span) => {
      try {
        return await work(span);
      } finally {
        span.end();
      }
    });
  } finally {
    context.disable();
    trace.disable();
  }
}
