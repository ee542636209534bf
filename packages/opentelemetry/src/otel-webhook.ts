/**
 * Webhook deliveries in OpenTelemetry's words, from what the verifier publishes through the
 * observation seam: the outcome, reason, `webhook-id` and event type on the delivery's span, and the
 * counter `promo_review.webhook.deliveries` by outcome and reason.
 */
import type { ObservationOrigin, Observer } from "@promo-review/errors/observe";
import type { OtelAttributes } from "./otel-shape.js";
import type { Telemetry } from "./telemetry.js";
import type { TracedSpan } from "./traced-span.js";

const DELIVERIES = { unit: "{delivery}", description: "Webhook deliveries by outcome" };

/** The verifier's callbacks of the OpenTelemetry observer (a part of `openTelemetryObserver`). */
export function webhookCallbacks(
  telemetryOf: (origin: ObservationOrigin) => Telemetry | undefined,
  spanOf: (operation: unknown) => TracedSpan | undefined,
): Pick<Observer, "webhookVerified"> {
  return {
    webhookVerified({ parent, outcome, reason, webhookId, eventType, ...origin }) {
      const counted: OtelAttributes = {
        "promo_review.webhook.outcome": outcome,
        "promo_review.webhook.reason": reason,
      };
      spanOf(parent)?.set({
        ...counted,
        "promo_review.webhook.id": webhookId,
        "promo_review.webhook.event_type": eventType,
      });
      telemetryOf(origin)?.add("promo_review.webhook.deliveries", DELIVERIES, 1, counted);
    },
  };
}
