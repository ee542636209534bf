import { isPromoReviewError, PromoReviewError } from "@promo-review/errors";
import { isPromiseLike, type SignedContent } from "./crypto-backend.js";
import type { DeliveryHeaders } from "./header-values.js";
import { type PayloadWarning, parsePayload, type WebhookEvent } from "./payload.js";
import { refuse } from "./refuse.js";
import type { ReplayStore } from "./replay-store.js";
import type { SignatureScheme } from "./schemes.js";

// A delivery's verification, top-down. Each step is a function below, in the order it runs, and hands
// its result to the next:
//
//   1. the raw body and 2. the headers, read as the input came: a Fetch `Request` by `readRequest`
//      (fetch-input.ts: `Headers` and bytes, all a Fetch handler ever meets), any shape `verify()` and
//      the Node handler accept by `readInput` (body.ts); both check the headers' form (header-values.ts)
//   3. the signature, against each configured secret (`checkSignature`)
//   4. the timestamp, within the tolerance (`checkTimestamp`)
//   5. the id, claimed once (`claimOnce`)
//   6. the event, parsed from the signed body (`parsePayload`; never throws, mismatches are warnings)
//   7. the outcome, published: the warnings here, the delivery's outcome around the whole
//      (`deliveryTracing` in verify.ts wraps `verifyDelivery`, so a refusal at any step is published).
//
// Steps 3-4 are `authenticate`, which the signature-only entry (`signature.ts`) shares with HMAC on Web
// Crypto, adding step 5 when given a store; the full verifier (`verify.ts`) runs them all.

/** Steps 1 and 2 done: the headers checked for form and the body as signed, not yet authenticated. */
export interface ReceivedDelivery {
  headers: DeliveryHeaders;
  body: string | Uint8Array;
}

/** A delivery whose signature and timestamp passed; the body is not parsed yet. */
export interface VerifiedSignature {
  /** The `webhook-id`: the same on every retry of one message, so an idempotency key. */
  id: string;
  /** The `webhook-timestamp`, unix seconds. */
  timestamp: number;
  /** The body as received. */
  body: string | Uint8Array;
}

/** A verified, parsed and claimed delivery. */
export interface VerifiedDelivery {
  id: string;
  timestamp: number;
  /** The body typed where it matches the spec (see `parsePayload`). */
  event: WebhookEvent;
  /** The body as sent: the parsed JSON, else its text, else its bytes. Nothing of it is ever dropped. */
  payload: unknown;
  /** Where the body did not match what the spec states (empty for a well-formed delivery). */
  warnings: readonly PayloadWarning[];
}

/** What authenticating a delivery needs: the schemes to try, the clock and the tolerance. */
export interface SignatureCheck {
  /** Never empty. */
  schemes: readonly SignatureScheme[];
  now: () => number;
  toleranceSeconds: number;
}

/** The rules of a whole delivery: authentication, the replay claim, and where warnings go. */
export interface DeliveryRules extends SignatureCheck {
  /** Where ids are claimed; `undefined` for no replay protection. */
  replayStore: ReplayStore | undefined;
  /** How long a claim lasts. */
  windowMs: number;
  warn: (warning: PayloadWarning) => void;
}

/** Steps 3 to 7: a delivery read by a step 1-2 reader, verified, claimed and parsed. */
export async function verifyDelivery(
  rules: DeliveryRules,
  received: ReceivedDelivery,
): Promise<VerifiedDelivery> {
  const { id, timestamp, body } = await authenticate(rules, received);
  if (rules.replayStore) await claimOnce(rules.replayStore, id, rules.windowMs);
  const { event, payload, warnings } = parsePayload(body, id);
  for (const warning of warnings) rules.warn(warning);
  return { id, timestamp, event, payload, warnings };
}

/**
 * Steps 3 and 4: the signature and the timestamp, in that order. The signature comes before the
 * timestamp so that a clock-skew message is only given for an authentic delivery, where the measured
 * offset means something.
 */
export async function authenticate(
  check: SignatureCheck,
  received: ReceivedDelivery,
): Promise<VerifiedSignature> {
  const { headers, body } = received;
  await checkSignature(check.schemes, headers, { id: headers.id, timestamp: headers.timestamp, body });
  checkTimestamp(headers.id, headers.seconds, check.now(), check.toleranceSeconds);
  return { id: headers.id, timestamp: headers.seconds, body };
}

/** Step 3: some signature of the header matches a configured scheme, else a refusal naming the likely mistake. */
async function checkSignature(
  schemes: readonly SignatureScheme[],
  headers: DeliveryHeaders,
  content: SignedContent,
): Promise<void> {
  for (const scheme of schemes) {
    const values = headers.signatures.filter((entry) => entry.version === scheme.version).map((e) => e.value);
    if (values.length === 0) continue;
    const result = scheme.verify(content, values);
    if (isPromiseLike(result) ? await result : result) return;
  }
  const sent = [...new Set(headers.signatures.map((entry) => entry.version))];
  const known = new Set(schemes.map((scheme) => scheme.version));
  if (!sent.some((version) => known.has(version))) {
    throw refuse(
      "bad_signature",
      `The delivery is signed with ${sent.join(", ")}, but the configured secrets verify ${[...known].join(", ")}: configure the matching secret`,
      { webhookId: headers.id },
    );
  }
  throw refuse(
    "bad_signature",
    "No signature matched. Usually the body is not the bytes that were sent (pass the raw body: parsed and re-serialised JSON never matches) or the secret is not this endpoint's (each endpoint has its own whsec_; during a rotation configure both the old and the new)",
    { webhookId: headers.id },
  );
}

/** Step 4: the timestamp within the tolerance either way, else a refusal that measures the skew. */
function checkTimestamp(id: string, seconds: number, nowMs: number, toleranceSeconds: number): void {
  const offset = seconds - Math.floor(nowMs / 1000);
  if (offset < -toleranceSeconds) {
    throw refuse(
      "timestamp_too_old",
      `The webhook was signed ${-offset} s ago, more than the ${toleranceSeconds} s tolerance. Either it is a replay of an old delivery, or this server's clock is about ${-offset} s ahead of the sender's (sync it with NTP)`,
      { webhookId: id, offsetSeconds: offset },
    );
  }
  if (offset > toleranceSeconds) {
    throw refuse(
      "timestamp_too_new",
      `The webhook is timestamped ${offset} s in the future, more than the ${toleranceSeconds} s tolerance: this server's clock is about ${offset} s behind the sender's (sync it with NTP)`,
      { webhookId: id, offsetSeconds: offset },
    );
  }
}

/**
 * Step 5: claims an accepted `webhook-id` for `windowMs`. A second claim within the window is refused
 * as `replayed`; a store that fails is `REPLAY_STORE_FAILED` (retryable), never a pass and never a
 * bad signature.
 */
export async function claimOnce(store: ReplayStore, id: string, windowMs: number): Promise<void> {
  let claimed: boolean;
  try {
    claimed = await store.claim(id, windowMs);
  } catch (cause) {
    if (isPromoReviewError(cause)) throw cause;
    // A store that is down must not let replays through, nor look like a bad signature.
    throw new PromoReviewError({
      code: "REPLAY_STORE_FAILED",
      message: `The replay store failed to claim webhook-id ${id}; the delivery was not processed`,
      retryable: true,
      cause,
    });
  }
  if (!claimed) {
    throw refuse("replayed", `The webhook-id ${id} was already accepted within the replay window`, {
      webhookId: id,
    });
  }
}
