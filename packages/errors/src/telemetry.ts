/**
 * OpenTelemetry for the SDK's packages, without importing `@opentelemetry/api`: a user passes a
 * `tracerProvider` and/or a `meterProvider`, and each client turns them into a {@link Telemetry} once.
 * Without either, {@link telemetryFrom} returns `undefined` and callers skip all span and metric code.
 * Shared by every package (each depends on `errors`); no semver promise beyond the option names.
 * @packageDocumentation
 */
import type {
  OtelAttributes,
  OtelCounter,
  OtelHistogram,
  OtelInstrumentOptions,
  OtelMeter,
  OtelTracer,
  TelemetryOptions,
} from "./otel-shape.js";
import type { Redactor } from "./redact.js";
import { cleanAttributes, type TracedSpan, tracedSpan } from "./traced-span.js";

export * from "./otel-shape.js";
export { cleanAttributes, errorType, type TracedSpan } from "./traced-span.js";

/** One package's instruments on the user's providers. */
export interface Telemetry {
  /**
   * Starts a span under `parent`, or under the caller's active span when no parent is given (where
   * the provider has a context manager). `undefined` when only a meter provider was given.
   */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: OtelAttributes; startTime?: number },
    parent?: TracedSpan,
  ): TracedSpan | undefined;
  /**
   * Histogram `name` itself (created once, with `options`), for a hot path that records with attribute
   * sets it cleaned once (rate-budget's point per acquisition); `undefined` without a meter.
   */
  histogram(name: string, options: OtelInstrumentOptions): OtelHistogram | undefined;
  /** Records `value` on histogram `name` (created once, with `options`); nothing without a meter. */
  record(name: string, options: OtelInstrumentOptions, value: number, attributes?: OtelAttributes): void;
  /** Adds `value` to counter `name` (created once, with `options`); nothing without a meter. */
  add(name: string, options: OtelInstrumentOptions, value: number, attributes?: OtelAttributes): void;
}

/** Who reports: the package's name and version, OpenTelemetry's instrumentation scope. */
export interface TelemetryScope {
  name: string;
  version: string;
  /** The client's redactor: every string attribute passes through it. */
  redact: Redactor;
}

/**
 * The telemetry of one client, or `undefined` when the user passed no provider: then the caller runs
 * no span or metric code at all.
 */
export function telemetryFrom(
  options: TelemetryOptions | undefined,
  scope: TelemetryScope,
): Telemetry | undefined {
  const { tracerProvider, meterProvider } = options ?? {};
  if (!tracerProvider && !meterProvider) return undefined;
  const { name, version, redact } = scope;
  const tracer: OtelTracer | undefined = tracerProvider?.getTracer(name, version);
  let meter: OtelMeter | undefined;
  const instruments = new Map<string, OtelHistogram | OtelCounter>();
  const instrument = <I>(key: string, make: (meter: OtelMeter) => I): I | undefined => {
    if (!meterProvider) return undefined;
    meter ??= meterProvider.getMeter(name, version);
    let made = instruments.get(key) as I | undefined;
    if (!made) {
      made = make(meter);
      instruments.set(key, made as OtelHistogram | OtelCounter);
    }
    return made;
  };
  const histogram = (metric: string, instrumentOptions: OtelInstrumentOptions) =>
    instrument(`h ${metric}`, (m) => m.createHistogram(metric, instrumentOptions));
  return {
    startSpan(spanName, spanOptions = {}, parent) {
      if (!tracer) return undefined;
      const { attributes, ...rest } = spanOptions;
      const span = tracer.startSpan(
        spanName,
        { ...rest, attributes: cleanAttributes(attributes ?? {}, redact) },
        parent?.context,
      );
      return tracedSpan(span, redact);
    },
    histogram,
    record(metric, instrumentOptions, value, attributes = {}) {
      histogram(metric, instrumentOptions)?.record(value, cleanAttributes(attributes, redact));
    },
    add(metric, instrumentOptions, value, attributes = {}) {
      instrument(`c ${metric}`, (m) => m.createCounter(metric, instrumentOptions))?.add(
        value,
        cleanAttributes(attributes, redact),
      );
    },
  };
}

/**
 * Runs `work` as operation `name`: inside an INTERNAL span under `parent` (or the caller's active
 * span) when there is a tracer, else just runs it. The span ends when `work` settles, with status
 * ERROR and `error.type` when it threw, and with `promo_review.correlation_id` when the result has one.
 */
export async function traced<T>(
  telemetry: Telemetry | undefined,
  name: string,
  attributes: OtelAttributes,
  work: (operation: TracedSpan | undefined) => Promise<T>,
  parent?: TracedSpan,
): Promise<T> {
  const operation = telemetry?.startSpan(name, { kind: 0, attributes }, parent);
  if (!operation) return work(undefined);
  try {
    const result = await work(operation);
    const correlationId = (result as { correlationId?: unknown } | undefined)?.correlationId;
    if (typeof correlationId === "string") operation.set({ "promo_review.correlation_id": correlationId });
    operation.end();
    return result;
  } catch (error) {
    const correlationId = (error as { correlationId?: unknown } | undefined)?.correlationId;
    if (typeof correlationId === "string") operation.set({ "promo_review.correlation_id": correlationId });
    operation.end(error);
    throw error;
  }
}

/**
 * The W3C `traceparent` of `span`, or `undefined` for an invalid span context (all-zero ids).
 * Sent only where the caller asked for it (`propagateTraceContext`) and only to configured origins.
 */
export function traceparentOf(span: TracedSpan): string | undefined {
  const { traceId, spanId, traceFlags } = span.span.spanContext();
  if (!/^(?!0+$)[0-9a-f]{32}$/.test(traceId) || !/^(?!0+$)[0-9a-f]{16}$/.test(spanId)) return undefined;
  return `00-${traceId}-${spanId}-0${traceFlags & 1}`;
}
