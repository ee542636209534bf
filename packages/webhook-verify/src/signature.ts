/**
 * The signature-only entry, `@promo-review/webhook-verify/signature`: Standard Webhooks `v1`
 * (HMAC-SHA256) signature, timestamp tolerance and, given a replay store, the `webhook-id`, on Web
 * Crypto, returning the raw body. No payload typing, no listeners: for receivers that parse the body
 * themselves and count every byte. The full verifier (`createWebhookVerifier`) runs the same checks.
 * @packageDocumentation
 */

import type { WebhookInput } from "./body.js";
import { readInput } from "./body.js";
import { timingSafeEqualStrings } from "./bytes.js";
import { webHmacSigner } from "./crypto-web.js";
import { authenticate, claimOnce, type VerifiedSignature } from "./delivery.js";
import { refuse } from "./refuse.js";
import type { ReplayStore } from "./replay-store.js";
import { hmacScheme } from "./schemes.js";
import { parseSecrets, type WebhookSecret } from "./secrets.js";

export { WebhookVerificationError, type WebhookVerificationReason } from "@promo-review/errors";
export type { RawBody, WebhookInput } from "./body.js";
export type { HeadersInput } from "./headers.js";
export type { ReplayStore } from "./replay-store.js";
export type { WebhookSecret } from "./secrets.js";
export type { VerifiedSignature };

/** Options of {@link createSignatureVerifier}. */
export interface SignatureVerifierOptions {
  /** The endpoint's `whsec_` secret, or several during a rotation (raw key bytes also do). */
  webhookSecret: WebhookSecret | readonly WebhookSecret[];
  /** How far the `webhook-timestamp` may be from this clock, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The clock in milliseconds (default `Date.now`); inject one in tests. */
  now?: () => number;
  /**
   * Where accepted `webhook-id`s are claimed, so that a replay within the window is refused as
   * `replayed`. None by default here (the full verifier defaults to a memory store).
   */
  replayStore?: ReplayStore;
  /** How long a claim lasts (default twice the tolerance: a timestamp is valid that long). */
  replayWindowSeconds?: number;
}

/** Checks deliveries of one endpoint. Make one per endpoint and reuse it: keys are imported once. */
export interface SignatureVerifier {
  /**
   * Checks headers, body, signature and timestamp, then claims the id when a replay store is given.
   * Resolves the id, timestamp and raw body; rejects with `WebhookVerificationError` whose `reason`
   * names the failed check (or `REPLAY_STORE_FAILED` when the store fails).
   */
  verify(input: WebhookInput | Request): Promise<VerifiedSignature>;
}

/**
 * Makes a signature-only verifier. The secrets are read now, so a malformed one (whitespace, not
 * base64) fails at start-up; an Ed25519 key (`whpk_`) is refused, since `v1a` needs the full verifier.
 */
export function createSignatureVerifier(options: SignatureVerifierOptions): SignatureVerifier {
  const keys = parseSecrets(options.webhookSecret).map((secret) => {
    if (secret.kind !== "hmac") {
      throw refuse(
        "secret_format",
        "This entry verifies v1 (whsec_) signatures only: for an Ed25519 key use createWebhookVerifier",
      );
    }
    return secret.key;
  });
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const check = {
    schemes: [hmacScheme({ hmacSigner: webHmacSigner, equalSignatures: timingSafeEqualStrings }, keys)],
    now: options.now ?? Date.now,
    toleranceSeconds,
  };
  const { replayStore } = options;
  const windowMs = (options.replayWindowSeconds ?? 2 * toleranceSeconds) * 1000;
  return {
    async verify(input) {
      const verified = await authenticate(check, await readInput(input));
      if (replayStore) await claimOnce(replayStore, verified.id, windowMs);
      return verified;
    },
  };
}
