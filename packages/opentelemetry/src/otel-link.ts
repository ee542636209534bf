/**
 * Link imports in OpenTelemetry's words, from what link capture publishes through the observation
 * seam: a `promo_review.link.poll` event on the waiting operation's span for each status read, with
 * its number and the status seen (as the service sent it) or the `error.type` it failed with.
 */
import type { Observer } from "@promo-review/errors/observe";
import { errorType, type TracedSpan } from "./traced-span.js";

/** Link capture's callbacks of the OpenTelemetry observer (a part of `openTelemetryObserver`). */
export function linkCallbacks(
  _telemetryOf: unknown,
  spanOf: (operation: unknown) => TracedSpan | undefined,
): Pick<Observer, "linkPolled"> {
  return {
    linkPolled({ parent, attempt, status, error }) {
      spanOf(parent)?.event("promo_review.link.poll", {
        "promo_review.link.poll.attempt": attempt,
        "promo_review.link.status": status,
        // The error's code (ours all have one), never its message.
        "error.type": error === undefined ? undefined : errorType(error),
      });
    },
  };
}
