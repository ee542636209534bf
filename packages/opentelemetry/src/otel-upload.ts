/**
 * Uploads in OpenTelemetry's words, from what the upload publishes through the observation seam: an
 * event on its `uploads.upload` span for each chunk attempt, a resume and each completion poll, and the
 * `promo_review.upload.throughput` histogram. No file name, no URL (each request's CLIENT span has the
 * redacted `url.full`), and no id in a metric.
 */
import type { ObservationOrigin, Observer } from "@promo-review/errors/observe";
import type { Telemetry } from "./telemetry.js";
import { errorType, type TracedSpan } from "./traced-span.js";

/** The throughput histogram: its unit, and bucket bounds from 64 KiB/s to 1 GiB/s (powers of 4). */
const THROUGHPUT = {
  unit: "By/s",
  advice: { explicitBucketBoundaries: [16, 18, 20, 22, 24, 26, 28, 30].map((power) => 2 ** power) },
};

/** The upload's callbacks of the OpenTelemetry observer (a part of `openTelemetryObserver`). */
export function uploadCallbacks(
  telemetryOf: (origin: ObservationOrigin) => Telemetry | undefined,
  spanOf: (operation: unknown) => TracedSpan | undefined,
): Pick<Observer, "uploadChunk" | "uploadResumed" | "uploadPolled" | "uploadTransferred"> {
  return {
    uploadChunk({ parent, start, end, attempt, outcome, error }) {
      spanOf(parent)?.event("promo_review.upload.chunk", {
        "promo_review.upload.range_start": start,
        // Inclusive, as in `Content-Range`.
        "promo_review.upload.range_end": end - 1,
        "promo_review.upload.bytes": end - start,
        "promo_review.upload.attempt": attempt,
        "promo_review.upload.outcome": outcome,
        // The error's code (ours all have one), never its message.
        "error.type": error === undefined ? undefined : errorType(error),
      });
    },
    uploadResumed({ parent, offset, fromStore }) {
      spanOf(parent)?.event("promo_review.upload.resumed", {
        "promo_review.upload.offset": offset,
        "promo_review.upload.from_resume_store": fromStore,
      });
    },
    uploadPolled({ parent, status }) {
      spanOf(parent)?.event("promo_review.upload.poll", { "promo_review.upload.status": status });
    },
    uploadTransferred({ bytes, ms, format, ...origin }) {
      if (bytes <= 0) return;
      // A loopback chunk can take under the clock's resolution: count it as one microsecond.
      const seconds = Math.max(ms, 0.001) / 1000;
      telemetryOf(origin)?.record("promo_review.upload.throughput", THROUGHPUT, bytes / seconds, {
        "promo_review.upload.format": format,
      });
    },
  };
}
