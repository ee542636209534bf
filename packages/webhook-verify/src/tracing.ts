import { WebhookVerificationError } from "@promo-review/errors";
import { redactorFor } from "@promo-review/errors/internal";
import type { Observer, WebhookOutcome } from "@promo-review/errors/observe";

/** This package's version, named to observers; tracing.test.ts keeps it equal to package.json. */
export const VERSION = "0.3.0";
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
 * Each delivery published through the observation seam, or the check as it is when no observer was
 * given (then no observation code runs).
 *
 * One operation per call, and before it ends the delivery's outcome with the `webhook-id` and the
 * event's type: `accepted`; `duplicate` for a replay of an accepted id, which is not an error (the
 * sender only retried); `refused` with the refusal's `reason`, the operation ending with the error;
 * `failed` when no verdict could be reached (the replay store failed), likewise. Never the body, the
 * signature, the timestamp or another header: the `webhook-id` and the event type are the only strings
 * a sender controls here, and observers redact them with a redactor holding the configured secrets.
 */
export function deliveryTracing(options: {
  telemetry?: Observer | undefined;
  webhookSecret?: unknown;
}): TraceDeliveries {
  const observer = options.telemetry;
  if (!observer) return (_name, check) => check;
  const origin = {
    source: { name: "@promo-review/webhook-verify", version: VERSION },
    // Raw-bytes secrets are left out by redactorFor: only text can be echoed into an attribute.
    redact: redactorFor([options.webhookSecret].flat() as string[]),
  };
  return (name, check) => async (input) => {
    const parent = observer.operationStarted?.({ ...origin, name });
    const delivery: WebhookOutcome = { ...origin, parent, outcome: "accepted" };
    let failure: unknown;
    try {
      const result = await check(input);
      delivery.webhookId = result.id;
      delivery.eventType = result.event?.type ?? undefined;
      return result;
    } catch (error) {
      const refusal = error instanceof WebhookVerificationError ? error : undefined;
      delivery.webhookId = refusal?.webhookId;
      // A replay of an accepted id is counted apart and is no error: the sender only retried.
      if (refusal?.reason === "replayed") delivery.outcome = "duplicate";
      else {
        delivery.outcome = refusal ? "refused" : "failed";
        delivery.reason = refusal?.reason;
        failure = error;
      }
      throw error;
    } finally {
      observer.webhookVerified?.(delivery);
      if (parent) observer.operationEnded?.(parent, failure === undefined ? {} : { error: failure });
    }
  };
}
