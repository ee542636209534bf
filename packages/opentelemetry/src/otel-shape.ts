/**
 * The part of `@opentelemetry/api` 1.x the SDK calls, declared by shape. The packages never import the
 * API at run time: a user passes a provider built with it, and the real `TracerProvider` and
 * `MeterProvider` types are assignable to these (`telemetry-shape.test.ts` checks it against the API).
 * @packageDocumentation
 */

/** An attribute value as OpenTelemetry takes it (the API's `AttributeValue`). */
export type OtelAttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;

/** Span, event or metric attributes. An `undefined` value means "not given" and is left out. */
export type OtelAttributes = Record<string, OtelAttributeValue | undefined>;

/** An OpenTelemetry `Context`: immutable values under symbol keys. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** What a span's identity carries, for `traceparent`. */
export interface OtelSpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: { serialize(): string } | undefined;
}

/** An OpenTelemetry `Span`, as far as the SDK uses one. */
export interface OtelSpan {
  spanContext(): OtelSpanContext;
  setAttributes(attributes: OtelAttributes): unknown;
  addEvent(name: string, attributes?: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
  isRecording(): boolean;
}

/** The options of `Tracer.startSpan` the SDK gives. */
export interface OtelSpanOptions {
  /** `SpanKind`: 0 internal, 2 client (see `SPAN_KIND`). */
  kind?: number;
  attributes?: OtelAttributes;
  /** Epoch milliseconds, for a span recorded after the fact (a wait measured once it ended). */
  startTime?: number;
}

/** An OpenTelemetry `Tracer`. */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** An OpenTelemetry `TracerProvider`: pass one as `tracerProvider` to switch spans on. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): OtelTracer;
}

/** An OpenTelemetry `Histogram`. */
export interface OtelHistogram {
  record(value: number, attributes?: OtelAttributes): void;
}

/** An OpenTelemetry `Counter`. */
export interface OtelCounter {
  add(value: number, attributes?: OtelAttributes): void;
}

/** The options of an instrument the SDK creates. */
export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** An OpenTelemetry `Meter`. */
export interface OtelMeter {
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
}

/** An OpenTelemetry `MeterProvider`: pass one as `meterProvider` to switch metrics on. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): OtelMeter;
}

/**
 * The options every client of the SDK takes to report to OpenTelemetry. Both are opt-in: without them
 * no span or metric code runs.
 */
export interface TelemetryOptions {
  /** Spans: one per operation, one CLIENT span per HTTP attempt under it. */
  tracerProvider?: TracerProviderLike | undefined;
  /** Metrics: `http.client.request.duration` and the SDK's own `promo_review.*` instruments. */
  meterProvider?: MeterProviderLike | undefined;
}

/** `SpanKind` values of the API. */
export const SPAN_KIND = { internal: 0, server: 1, client: 2 } as const;
