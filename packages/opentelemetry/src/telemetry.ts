/**
 * OpenTelemetry for the SDK's packages, without importing `@opentelemetry/api`: a user passes a
 * `tracerProvider` and/or a `meterProvider`, and each client turns them into a {@link Telemetry} once.
 * Without either, {@link telemetryFrom} returns `undefined` and callers skip all span and metric code.
 * Shared by every package (each depends on `errors`); no semver promise beyond the option names.
 * @packageDocumentation
 */

import type { Redactor } from "@promo-review/errors/internal";
import type {
  ObservationOrigin,
  ObservedOperation,
  ObservedValue,
  Observer,
} from "@promo-review/errors/observe";
import { traceRequest } from "./otel-request.js";
import type {
  OtelAttributes,
  OtelCounter,
  OtelHistogram,
  OtelInstrumentOptions,
  OtelMeter,
  OtelTracer,
  TelemetryOptions,
} from "./otel-shape.js";
import { SPAN_KIND } from "./otel-shape.js";
import { cleanAttributes, type TracedSpan, tracedSpan } from "./traced-span.js";

export { budgetCallbacks } from "./otel-budget.js";
export { linkCallbacks } from "./otel-link.js";
export { literalTemplate, spanUrl } from "./otel-request.js";
export * from "./otel-shape.js";
export { uploadCallbacks } from "./otel-upload.js";
export { uploadWaitCallbacks } from "./otel-upload-wait.js";
export { webhookCallbacks } from "./otel-webhook.js";
export { cleanAttributes, errorType, type TracedSpan, traceparentOf } from "./traced-span.js";

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

/** What {@link openTelemetryObserver} takes: the providers, and whether to propagate trace context. */
export interface OpenTelemetryObserverOptions extends TelemetryOptions {
  /**
   * Return W3C `traceparent` (the span of the request on the wire) for every request, which the
   * pipeline sends to the configured origins only, so that the service's traces join the caller's.
   * Needs a `tracerProvider`. In a browser the service's CORS preflight must allow `traceparent`.
   * Default false.
   */
  propagateTraceContext?: boolean | undefined;
}

/** `promo_review.` and the detail's key in snake case: `promotionId` is `promo_review.promotion_id`. */
function detailAttributes(details: Record<string, ObservedValue> | undefined): OtelAttributes {
  const attributes: OtelAttributes = {};
  for (const key in details) {
    const value = details[key];
    attributes[`promo_review.${key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`] = Array.isArray(value)
      ? [...(value as readonly string[])]
      : (value as Exclude<ObservedValue, readonly string[]>);
  }
  return attributes;
}

/**
 * More of an OpenTelemetry observer's callbacks (the rate budget's: `budgetCallbacks`), made on the
 * observer's `telemetryOf` (one package's telemetry per client) and `spanOf` (an operation handle's
 * span). Kept apart so that a bundle takes only the parts it names.
 */
export type ObserverPart = (
  telemetryOf: (origin: ObservationOrigin) => Telemetry | undefined,
  spanOf: (operation: unknown) => TracedSpan | undefined,
) => Observer;

/**
 * An {@link Observer} reporting to OpenTelemetry: an INTERNAL span per operation (named as the
 * operation, its details as `promo_review.*` attributes, `promo_review.correlation_id` and `error.type`
 * at its end), a CLIENT span and a `http.client.request.duration` point per request on the wire under
 * it, and the retry, budget-wait and 429 events and counters. Each publishing package reports under
 * its own instrumentation scope, and every string through the publishing client's redactor. `parts`
 * add the callbacks of other packages (`budgetCallbacks`, the rate budget's; `webhookCallbacks`, the
 * verifier's; `uploadCallbacks`, the upload's; `linkCallbacks`, link capture's).
 */
export function openTelemetryObserver(
  options: OpenTelemetryObserverOptions,
  ...parts: ObserverPart[]
): Observer {
  const propagate = options.propagateTraceContext === true;
  // Per client (its redactor) and package: the tracer and the instruments are asked for once each.
  const clients = new WeakMap<Redactor, Map<string, Telemetry | undefined>>();
  const telemetryOf = ({ source, redact }: ObservationOrigin): Telemetry | undefined => {
    let bySource = clients.get(redact);
    if (!bySource) {
      bySource = new Map();
      clients.set(redact, bySource);
    }
    if (!bySource.has(source.name)) bySource.set(source.name, telemetryFrom(options, { ...source, redact }));
    return bySource.get(source.name);
  };
  // The handles this observer gives are its spans; the packages never look inside.
  const spanOf = (operation: unknown) => operation as TracedSpan | undefined;
  const more: Observer = {};
  for (const part of parts) Object.assign(more, part(telemetryOf, spanOf));
  return {
    ...more,
    operationStarted(start) {
      const span = telemetryOf(start)?.startSpan(
        start.name,
        { kind: SPAN_KIND.internal, attributes: detailAttributes(start.details) },
        spanOf(start.parent),
      );
      return span as unknown as ObservedOperation | undefined;
    },
    operationDetailed(operation, details) {
      spanOf(operation)?.set(detailAttributes(details));
    },
    operationEnded(operation, { correlationId, error, details }) {
      const span = spanOf(operation);
      if (details) span?.set(detailAttributes(details));
      if (correlationId !== undefined) span?.set({ "promo_review.correlation_id": correlationId });
      span?.end(error);
    },
    requestStarted(start) {
      const telemetry = telemetryOf(start);
      if (!telemetry) return undefined;
      const { method, path, urlTemplate } = start;
      return traceRequest(telemetry, {
        method,
        path,
        urlTemplate,
        operation: spanOf(start.parent),
        propagate,
      });
    },
  };
}
