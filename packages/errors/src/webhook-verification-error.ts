import { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";
import { redactorFor } from "./redact.js";

/**
 * Why a webhook delivery was refused. Each names one check, so a receiver can log and count them
 * (an HTTP answer to the sender must not say which check failed).
 *
 * - `missing_headers`: `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent.
 * - `malformed_headers`: a header is present but not in the Standard Webhooks form.
 * - `bad_signature`: no signature in the header matches any configured secret.
 * - `timestamp_too_old` / `timestamp_too_new`: outside the tolerance (see `offsetSeconds`).
 * - `parsed_body`: the body was an object, not the raw bytes (a JSON body parser ran first).
 * - `secret_format`: a configured secret is not usable (whitespace, not base64, wrong prefix).
 * - `invalid_payload`: authentic, but not the JSON shape of the event.
 * - `replayed`: this `webhook-id` was already claimed within the replay window.
 * - `body_too_large`: the body exceeds the receiver's configured limit.
 */
export type WebhookVerificationReason =
  | "missing_headers"
  | "malformed_headers"
  | "bad_signature"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "parsed_body"
  | "secret_format"
  | "invalid_payload"
  | "replayed"
  | "body_too_large";

/** What a webhook verification failure is made of; `code` defaults to `WEBHOOK_VERIFICATION_FAILED`. */
export interface WebhookVerificationErrorInit extends Omit<PromoReviewErrorInit, "code"> {
  code?: PromoReviewErrorInit["code"];
  reason: WebhookVerificationReason;
  /** The delivery's `webhook-id`, when it could be read. */
  webhookId?: string;
  /** For timestamp failures: the sender's timestamp minus this receiver's clock, in seconds. */
  offsetSeconds?: number;
}

/**
 * A webhook delivery that was refused: its signature, timestamp, headers, body or payload did not
 * pass, or it was a replay. `reason` says which check failed; the message names the likely mistake.
 * Never retryable as is: the same bytes fail the same way.
 */
export class WebhookVerificationError extends PromoReviewError {
  static override readonly kind: string = "WebhookVerificationError";
  /** Which check failed. */
  declare readonly reason: WebhookVerificationReason;
  /** The delivery's `webhook-id`, when it could be read. */
  declare readonly webhookId: string | undefined;
  /** For timestamp failures: the sender's timestamp minus this receiver's clock, in seconds. */
  declare readonly offsetSeconds: number | undefined;

  constructor(init: WebhookVerificationErrorInit) {
    // One redactor for the base's fields and the id: an iterable of secrets may not be readable twice.
    const redact = init.redact ?? redactorFor(init.secrets);
    super({
      ...init,
      redact,
      code: init.code ?? "WEBHOOK_VERIFICATION_FAILED",
      retryable: init.retryable ?? false,
    });
    this.reason = init.reason;
    // The id is the sender's header, text like any other.
    this.webhookId = init.webhookId === undefined ? undefined : redact(init.webhookId);
    this.offsetSeconds = init.offsetSeconds;
  }
}
