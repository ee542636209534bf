import { type MeterProvider, metrics, type TracerProvider, trace } from "@opentelemetry/api";
import { RateLimitError } from "@promo-review/errors";
import { redactorFor } from "@promo-review/errors/internal";
import { afterEach, describe, expect, it } from "vitest";
import { insideActiveSpan, recordingTelemetry } from "../../../testing/otel.ts";
import {
  type MeterProviderLike,
  type TelemetryScope,
  type TracerProviderLike,
  telemetryFrom,
  traced,
  traceparentOf,
} from "./telemetry.js";

const SECRET = "sk_live_telemetry_secret_1234";
const scope: TelemetryScope = { name: "@promo-review/test", version: "0.0.0", redact: redactorFor([SECRET]) };
let recording = recordingTelemetry();
afterEach(async () => {
  await recording.shutdown();
  recording = recordingTelemetry();
});

describe("the API's providers fit the shapes the SDK declares", () => {
  it("assigns @opentelemetry/api's TracerProvider and MeterProvider types (checked by tsc)", () => {
    const tracerProvider: TracerProviderLike = trace.getTracerProvider() satisfies TracerProvider;
    const meterProvider: MeterProviderLike = metrics.getMeterProvider() satisfies MeterProvider;
    expect(typeof tracerProvider.getTracer).toBe("function");
    expect(typeof meterProvider.getMeter).toBe("function");
  });
});

describe("without a provider nothing runs", () => {
  it("telemetryFrom gives undefined, and traced just runs the work", async () => {
    expect(telemetryFrom(undefined, scope)).toBeUndefined();
    expect(telemetryFrom({}, scope)).toBeUndefined();
    await expect(traced(undefined, "op", {}, async (span) => span)).resolves.toBeUndefined();
  });
});

describe("an operation span", () => {
  it("is parented on the caller's active span, and its children on it", async () => {
    const telemetry = telemetryFrom({ tracerProvider: recording.tracerProvider }, scope);
    await insideActiveSpan(recording.tracerProvider, "caller", async () =>
      traced(telemetry, "promotions.create", { "promo_review.x": 1 }, async (operation) => {
        telemetry?.startSpan("POST /v1/promotions", { kind: 2 }, operation)?.end();
        return { correlationId: "c-1" };
      }),
    );
    const [caller] = recording.spansNamed("caller");
    const [operation] = recording.spansNamed("promotions.create");
    const [child] = recording.spansNamed("POST /v1/promotions");
    expect(operation?.parentSpanContext?.spanId).toBe(caller?.spanContext().spanId);
    expect(child?.parentSpanContext?.spanId).toBe(operation?.spanContext().spanId);
    expect(child?.kind).toBe(2);
    expect(operation?.attributes).toEqual({ "promo_review.x": 1, "promo_review.correlation_id": "c-1" });
  });

  it("without a context manager, children still hang under the operation", async () => {
    const telemetry = telemetryFrom({ tracerProvider: recording.tracerProvider }, scope);
    await traced(telemetry, "op", {}, async (operation) => {
      telemetry?.startSpan("child", {}, operation)?.end();
    });
    const [operation] = recording.spansNamed("op");
    expect(recording.childrenOf(operation!).map((span) => span.name)).toEqual(["child"]);
    expect(operation?.parentSpanContext).toBeUndefined();
  });

  it("ends with status ERROR and error.type the error's code, never its message", async () => {
    const telemetry = telemetryFrom({ tracerProvider: recording.tracerProvider }, scope);
    const error = new RateLimitError({
      code: "RATE_LIMITED",
      message: `slow down ${SECRET}`,
      correlationId: "c-9",
    });
    await expect(traced(telemetry, "op", {}, async () => Promise.reject(error))).rejects.toBe(error);
    const [span] = recording.spansNamed("op");
    expect(span?.status).toEqual({ code: 2, message: "RATE_LIMITED" });
    expect(span?.attributes["error.type"]).toBe("RATE_LIMITED");
    expect(span?.attributes["promo_review.correlation_id"]).toBe("c-9");
    expect((await recording.everyString()).join("\n")).not.toContain(SECRET);
  });
});

describe("no configured secret reaches a span, an event or a metric", () => {
  it("redacts every string attribute", async () => {
    const telemetry = telemetryFrom(
      { tracerProvider: recording.tracerProvider, meterProvider: recording.meterProvider },
      scope,
    );
    const span = telemetry?.startSpan("op", { attributes: { a: `Bearer ${SECRET}`, gone: undefined } });
    span?.set({ b: SECRET, list: ["ok", `in a list ${SECRET}`] });
    span?.event("e", { c: `x${SECRET}y` });
    span?.end();
    telemetry?.record("h", { unit: "s" }, 1, { d: SECRET });
    telemetry?.add("c", {}, 1, { e: SECRET });
    const strings = await recording.everyString();
    expect(strings.join("\n")).not.toContain(SECRET);
    expect(strings).toContain("[REDACTED]");
    expect(recording.spans()[0]?.attributes).not.toHaveProperty("gone");
  });
});

describe("an error's code is the service's text: redacted too", () => {
  it("a code that echoes the key leaves error.type and the status message without it", async () => {
    const telemetry = telemetryFrom({ tracerProvider: recording.tracerProvider }, scope);
    const echoed = Object.assign(new Error("refused"), { code: `E_${SECRET}` });
    await expect(traced(telemetry, "op", {}, async () => Promise.reject(echoed))).rejects.toBe(echoed);
    const [span] = recording.spansNamed("op");
    expect(span?.attributes["error.type"]).toBe("E_[REDACTED]");
    expect((await recording.everyString()).join("\n")).not.toContain(SECRET);
  });
});

describe("a span the sampler dropped costs no redaction", () => {
  it("set and event on a sampled-out span never call the redactor", async () => {
    const off = recordingTelemetry({ sampledOut: true });
    let calls = 0;
    const counting = {
      ...scope,
      redact: (text: string) => {
        calls++;
        return text;
      },
    };
    const span = telemetryFrom({ tracerProvider: off.tracerProvider }, counting)?.startSpan("op");
    calls = 0;
    span?.set({ a: "x" });
    span?.event("e", { b: "y" });
    span?.end();
    expect(calls).toBe(0);
    expect(span?.span.isRecording()).toBe(false);
    await off.shutdown();
  });
});

describe("metrics", () => {
  it("creates each instrument once and records on it", async () => {
    const telemetry = telemetryFrom({ meterProvider: recording.meterProvider }, scope);
    expect(telemetry?.startSpan("op")).toBeUndefined();
    telemetry?.record("promo_review.h", { unit: "s" }, 0.5, { k: "v" });
    telemetry?.record("promo_review.h", { unit: "s" }, 1.5, { k: "v" });
    telemetry?.add("promo_review.c", {}, 1);
    telemetry?.add("promo_review.c", {}, 2);
    const points = await recording.metrics();
    expect(points.get("promo_review.h")?.[0]?.value).toMatchObject({ count: 2, sum: 2 });
    expect(points.get("promo_review.c")?.[0]?.value).toBe(3);
  });
});

describe("traceparent", () => {
  it("is the W3C form of the span's context, flags from its sampling", async () => {
    const telemetry = telemetryFrom({ tracerProvider: recording.tracerProvider }, scope);
    const span = telemetry?.startSpan("op");
    const { traceId, spanId } = span!.span.spanContext();
    expect(traceparentOf(span!)).toBe(`00-${traceId}-${spanId}-01`);
    span?.end();
    const off = recordingTelemetry({ sampledOut: true });
    const unsampled = telemetryFrom({ tracerProvider: off.tracerProvider }, scope)?.startSpan("op");
    expect(traceparentOf(unsampled!)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    await off.shutdown();
  });
});
