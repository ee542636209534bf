import type { Redactor } from "@promo-review/errors/internal";
import type { OtelAttributes, OtelContext, OtelSpan } from "./otel-shape.js";
import { contextWithSpan } from "./telemetry-context.js";

/** `SpanStatusCode.ERROR` of the API. */
const STATUS_ERROR = 2;

/**
 * A span the SDK started, with the only ways the SDK writes to it: every string it is given passes
 * through the client's redactor first, so no configured secret reaches a span whatever a caller of
 * these methods passes.
 */
export interface TracedSpan {
  /** The span itself (for `traceparent`). */
  readonly span: OtelSpan;
  /** A context whose current span is this one: children are started in it. */
  readonly context: OtelContext;
  /** Sets attributes; `undefined` values are left out. */
  set(attributes: OtelAttributes): void;
  /** Adds an event; `undefined` attribute values are left out. */
  event(name: string, attributes?: OtelAttributes): void;
  /**
   * Ends the span. With `error`, the status is ERROR and `error.type` is the error's code (or its name
   * when it has no code): never its message, which may quote what the service sent.
   */
  end(error?: unknown): void;
}

/** `attributes` without `undefined` values, strings (alone or in an array) redacted. */
export function cleanAttributes(attributes: OtelAttributes, redact: Redactor): OtelAttributes {
  const clean: OtelAttributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    if (typeof value === "string") clean[key] = redact(value);
    else if (Array.isArray(value)) {
      clean[key] = (value as unknown[]).map((item) =>
        typeof item === "string" ? redact(item) : item,
      ) as typeof value;
    } else clean[key] = value;
  }
  return clean;
}

/** The `error.type` of a thrown value: its `code` (ours all have one), else its name, else `_OTHER`. */
export function errorType(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  if (typeof code === "string" && code) return code;
  return typeof name === "string" && name ? name : "_OTHER";
}

/** Wraps a started span. */
export function tracedSpan(span: OtelSpan, redact: Redactor): TracedSpan {
  let context: OtelContext | undefined;
  return {
    span,
    get context() {
      context ??= contextWithSpan(span);
      return context;
    },
    // A span the sampler dropped records nothing: skip the redaction work (the per-chunk cost of
    // tracing with spans sampled out, measured in upload-chunker's bench/tracing.mjs).
    set: (attributes) => void (span.isRecording() && span.setAttributes(cleanAttributes(attributes, redact))),
    event: (name, attributes = {}) =>
      void (span.isRecording() && span.addEvent(name, cleanAttributes(attributes, redact))),
    end(error) {
      if (error !== undefined) {
        // Redacted like every other string: an error's code is the service's text (a hostile service
        // can echo the key into it).
        const type = redact(errorType(error));
        span.setAttributes({ "error.type": type });
        span.setStatus({ code: STATUS_ERROR, message: type });
      }
      span.end();
    },
  };
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
