/**
 * Waits for an evaluation in OpenTelemetry's words, from what the facade's `evaluateAndWait` publishes
 * through the observation seam: a `promo_review.evaluation.poll` event on the waiting operation's span
 * for each read, with its number and the status seen.
 */
import type { Observer } from "@promo-review/errors/observe";
import type { TracedSpan } from "./traced-span.js";

/** The evaluation waits' callback of the OpenTelemetry observer (a part of `openTelemetryObserver`). */
export function evaluationCallbacks(
  _telemetryOf: unknown,
  spanOf: (operation: unknown) => TracedSpan | undefined,
): Pick<Observer, "evaluationPolled"> {
  return {
    evaluationPolled({ parent, attempt, status }) {
      spanOf(parent)?.event("promo_review.evaluation.poll", {
        "promo_review.evaluation.poll.attempt": attempt,
        "promo_review.evaluation.status": status,
      });
    },
  };
}
