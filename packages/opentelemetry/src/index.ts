/**
 * OpenTelemetry for every client of the SDK, behind one import: `openTelemetry({ tracerProvider,
 * meterProvider, propagateTraceContext })` is an `Observer` to pass as a client's `telemetry` option.
 * Nothing here imports `@opentelemetry/api` at run time: the providers are taken by shape.
 * @packageDocumentation
 */
import type { Observer } from "@promo-review/errors/observe";
import { evaluationCallbacks } from "./otel-evaluation.js";
import {
  budgetCallbacks,
  linkCallbacks,
  type MeterProviderLike,
  type OpenTelemetryObserverOptions,
  openTelemetryObserver,
  type TracerProviderLike,
  uploadCallbacks,
  uploadWaitCallbacks,
  webhookCallbacks,
} from "./telemetry.js";

/** The parts of `@opentelemetry/api` 1.x the providers are used through, declared by shape. */
export type {
  OtelAttributes,
  OtelAttributeValue,
  OtelContext,
  OtelCounter,
  OtelHistogram,
  OtelInstrumentOptions,
  OtelMeter,
  OtelSpan,
  OtelSpanContext,
  OtelSpanOptions,
  OtelTracer,
} from "./otel-shape.js";
export type { MeterProviderLike, TracerProviderLike };

/** What {@link openTelemetry} takes. Without either provider, the observer it returns reports nothing. */
export interface OpenTelemetryOptions {
  /** Spans: one per operation, one CLIENT span per request on the wire under it. */
  tracerProvider?: TracerProviderLike | undefined;
  /** Metrics: `http.client.request.duration` and the SDK's own `promo_review.*` instruments. */
  meterProvider?: MeterProviderLike | undefined;
  /**
   * Send W3C `traceparent` (the span of each request on the wire) to the configured origins (never to
   * another), so that the service's traces join the caller's. Needs a `tracerProvider`. In a browser
   * the service's CORS preflight must allow `traceparent`, or the browser refuses the request.
   * Default false.
   */
  propagateTraceContext?: boolean | undefined;
}

/**
 * The observer that reports a client's operations and requests to OpenTelemetry, named as its stable
 * HTTP client conventions say and as `promo_review.*` where they do not. Pass it as `telemetry`:
 * `createClient({ ..., telemetry: openTelemetry({ tracerProvider, meterProvider }) })`. One observer
 * serves any number of clients; no span, event or metric holds a configured secret or a body.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Observer {
  const { tracerProvider, meterProvider, propagateTraceContext } = options;
  const picked: OpenTelemetryObserverOptions = { tracerProvider, meterProvider, propagateTraceContext };
  return openTelemetryObserver(
    picked,
    budgetCallbacks,
    webhookCallbacks,
    uploadCallbacks,
    linkCallbacks,
    uploadWaitCallbacks,
    evaluationCallbacks,
  );
}
