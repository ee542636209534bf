import { WebhookVerificationError } from "@promo-review/errors";
import { redactorFor } from "@promo-review/errors/internal";
import { type OtelAttributes, type TelemetryOptions, telemetryFrom } from "@promo-review/errors/telemetry";

/** This package's version, OpenTelemetry's instrumentation scope; tracing.test.ts keeps it equal to package.json. */
export const VERSION = "0.1.0";

/** What a traced check resolves: the delivery's id, and its event when the body was parsed. */
interface Checked {
  id: string;
  event?: { type: string | null };
}

/** Wraps one check (`verifyDelivery`, `verifySignature`) so that each call is one delivery traced. */
export type TraceDeliveries = <I, R extends Checked>(
  name: string,
  check: (input: I) => Promise<R>,
) => (input: I) => Promise<R>;

/**
 * The span and the count of each delivery, or the check as it is when no provider was given (then no
 * span or metric code runs, and nothing reads the API's globals).
 *
 * One INTERNAL span per call, under the caller's active span (the user's server instrumentation),
 * with the `webhook-id`, the event's type and the outcome: `accepted`; `duplicate` for a replay of an
 * accepted id, which is not an error (the sender only retried; status stays unset); `refused` with the
 * refusal's `reason`, status ERROR and `error.type`; `failed` when no verdict could be reached (the
 * replay store failed), status ERROR. Never the body, the signature, the timestamp or another header:
 * the `webhook-id` and the event type are the only strings a sender controls here, and they pass
 * through a redactor holding the configured secrets like every other attribute.
 */
export function deliveryTracing(options: TelemetryOptions & { webhookSecret?: unknown }): TraceDeliveries {
  const telemetry =
    (options.tracerProvider || options.meterProvider) &&
    telemetryFrom(options, {
      name: "@promo-review/webhook-verify",
      version: VERSION,
      // Raw-bytes secrets are left out by redactorFor: only text can be echoed into an attribute.
      redact: redactorFor([options.webhookSecret].flat() as string[]),
    });
  if (!telemetry) return (_name, check) => check;
  return (name, check) => async (input) => {
    const span = telemetry.startSpan(name, { kind: 0 });
    const counted: OtelAttributes = { "promo_review.webhook.outcome": "accepted" };
    let id: string | undefined;
    let type: string | undefined;
    let failure: unknown;
    try {
      const result = await check(input);
      id = result.id;
      type = result.event?.type ?? undefined;
      return result;
    } catch (error) {
      const refusal = error instanceof WebhookVerificationError ? error : undefined;
      id = refusal?.webhookId;
      // A replay of an accepted id is counted apart and is no error: the sender only retried.
      if (refusal?.reason === "replayed") counted["promo_review.webhook.outcome"] = "duplicate";
      else {
        counted["promo_review.webhook.outcome"] = refusal ? "refused" : "failed";
        counted["promo_review.webhook.reason"] = refusal?.reason;
        failure = error;
      }
      throw error;
    } finally {
      span?.set({ ...counted, "promo_review.webhook.id": id, "promo_review.webhook.event_type": type });
      span?.end(failure);
      telemetry.add(
        "promo_review.webhook.deliveries",
        { unit: "{delivery}", description: "Webhook deliveries by outcome" },
        1,
        counted,
      );
    }
  };
}
