import { redactorFor } from "@promo-review/errors/internal";
import type { ObservedOperation } from "@promo-review/errors/observe";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { recordingTelemetry } from "../../../testing/otel.ts";
import { openTelemetry } from "./index.js";

const recording = recordingTelemetry();
afterEach(() => recording.reset());
afterAll(() => recording.shutdown());
const origin = { source: { name: "@promo-review/sdk", version: "1.0.0" }, redact: redactorFor([]) };

describe("a read while waiting for an evaluation: a `promo_review.evaluation.poll` event on the waiting operation", () => {
  it("each read's number and the status it saw", () => {
    const telemetry = openTelemetry({ tracerProvider: recording.tracerProvider });
    const operation = telemetry.operationStarted?.({ ...origin, name: "evaluateAndWait" });
    telemetry.evaluationPolled?.({ parent: operation, attempt: 1, status: "processing" });
    telemetry.evaluationPolled?.({ parent: operation, attempt: 2, status: "completed" });
    telemetry.operationEnded?.(operation as ObservedOperation, {});
    const [span] = recording.spansNamed("evaluateAndWait");
    expect(span?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "promo_review.evaluation.poll",
        { "promo_review.evaluation.poll.attempt": 1, "promo_review.evaluation.status": "processing" },
      ],
      [
        "promo_review.evaluation.poll",
        { "promo_review.evaluation.poll.attempt": 2, "promo_review.evaluation.status": "completed" },
      ],
    ]);
  });

  it("a read with no operation to put it on (no tracer) reports nothing", () => {
    const telemetry = openTelemetry({ meterProvider: recording.meterProvider });
    expect(() => telemetry.evaluationPolled?.({ attempt: 1, status: "processing" })).not.toThrow();
    expect(recording.spans()).toEqual([]);
  });
});
