/**
 * OpenTelemetry, as a user of the facade wires it in this runtime: a `BasicTracerProvider` and a
 * `MeterProvider` from the OpenTelemetry SDK, built by the user's code, given to the adapter
 * (`openTelemetry(...)` of `@promo-review/opentelemetry`) and passed to `createClient` as `telemetry`.
 * The SDK's packages themselves import nothing of OpenTelemetry (`telemetry-imports.test.ts` checks).
 */
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { openTelemetry } from "@promo-review/opentelemetry";
import { createClient } from "@promo-review/sdk";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

export async function run({ sim }: ScenarioInput): Promise<ScenarioOutput> {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // An interval no run reaches: the test collects by hand, and shutdown clears the timer.
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const client = createClient({
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    baseUrl: sim.baseUrl,
    filesUrl: sim.filesUrl,
    telemetry: openTelemetry({ tracerProvider, meterProvider, propagateTraceContext: true }),
  });
  try {
    const created = await client.promotions.create({
      promotionName: "Runtime proof (tracing)",
      productIds: [sim.reference.products[0]!.id],
      channelIds: [sim.reference.channels[0]!.id],
      jurisdictionId: sim.reference.jurisdictions[0]!.id,
      fileFormat: "text",
      content: "<p>Save 5% this spring. Capital at risk.</p>",
      metadata: { proof: "tracing" },
    });
    const { resourceMetrics } = await reader.collect();
    return {
      runtime: runtimeFingerprint(),
      correlationId: created.correlationId,
      spans: exporter.getFinishedSpans().map((span) => ({
        name: span.name,
        kind: span.kind,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId ?? null,
        attributes: span.attributes,
        status: span.status.code,
        scope: span.instrumentationScope.name,
      })),
      metrics: resourceMetrics.scopeMetrics.flatMap((scope) =>
        scope.metrics.map((metric) => ({
          name: metric.descriptor.name,
          unit: metric.descriptor.unit,
          points: metric.dataPoints.length,
        })),
      ),
    };
  } finally {
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  }
}
