import { WebhookVerificationError, type WebhookVerificationReason } from "@promo-review/errors";

/** A `WebhookVerificationError` for `reason`, with the message that names the likely mistake. */
export function refuse(
  reason: WebhookVerificationReason,
  message: string,
  extra: { webhookId?: string; offsetSeconds?: number; cause?: unknown } = {},
): WebhookVerificationError {
  return new WebhookVerificationError({ reason, message, ...extra });
}
