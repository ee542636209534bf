/**
 * Waits for uploads in OpenTelemetry's words, from what promotions-core publishes through the
 * observation seam: each wait is a `promo_review.upload_wait` event on the waiting operation's span.
 */
import type { Observer } from "@promo-review/errors/observe";
import type { TracedSpan } from "./traced-span.js";

/** The upload waits' callback of the OpenTelemetry observer (a part of `openTelemetryObserver`). */
export function uploadWaitCallbacks(
  _telemetryOf: unknown,
  spanOf: (operation: unknown) => TracedSpan | undefined,
): Pick<Observer, "uploadWaited"> {
  return {
    uploadWaited({ parent, uploadIds, attempt, delayMs }) {
      // Which uploads were not ready, after which attempt, and (without a waiter) the backoff slept.
      spanOf(parent)?.event("promo_review.upload_wait", {
        "promo_review.upload_ids": [...uploadIds],
        "promo_review.upload_wait.attempt": attempt,
        "promo_review.upload_wait.delay_ms": delayMs,
      });
    },
  };
}
