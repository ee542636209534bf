import { isPromoReviewError, PromoReviewError } from "@promo-review/errors";
import { type RawBody, rawBody } from "./body.js";
import { isPromiseLike, type SignedContent } from "./crypto-backend.js";
import { type HeadersInput, readDeliveryHeaders, type SignatureEntry } from "./headers.js";
import { refuse } from "./refuse.js";
import type { ReplayStore } from "./replay-store.js";
import type { SignatureScheme } from "./schemes.js";

// The steps every entry shares: read the input, match a signature, check the timestamp, claim the id.
// The signature-only entry (`signature.ts`) is these steps with HMAC on Web Crypto; the full verifier
// (`verify.ts`) adds its schemes, the payload and a default replay store around the same functions.

/** A delivery as a server framework hands it over: its headers and its raw body. */
export interface WebhookInput {
  headers: HeadersInput;
  /** The body exactly as received: bytes, an `ArrayBuffer`, or the text. Never a parsed object. */
  body: RawBody;
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

/** What a signature check needs: the schemes to try, the clock and the tolerance. */
export interface SignatureCheck {
  /** Never empty. */
  schemes: readonly SignatureScheme[];
  now: () => number;
  toleranceSeconds: number;
}

/** The headers and body of `input`: a `{ headers, body }` object, or a Fetch `Request` whose body is read now. */
async function inputParts(input: unknown): Promise<{ headers?: unknown; body?: unknown }> {
  if (typeof input !== "object" || input === null) {
    throw refuse("missing_headers", "Nothing to verify: pass { headers, body } or a Fetch Request");
  }
  const request = input as Request;
  if (typeof request.arrayBuffer !== "function" || typeof request.method !== "string") return input;
  if (request.bodyUsed) {
    throw refuse(
      "parsed_body",
      "The request body was read already (a Request can be read once): pass { headers, body } with the bytes you read",
    );
  }
  return { headers: request.headers, body: await request.arrayBuffer() };
}

function badSignature(id: string, entries: readonly SignatureEntry[], schemes: readonly SignatureScheme[]) {
  const sent = [...new Set(entries.map((entry) => entry.version))];
  const known = new Set(schemes.map((scheme) => scheme.version));
  if (!sent.some((version) => known.has(version))) {
    return refuse(
      "bad_signature",
      `The delivery is signed with ${sent.join(", ")}, but the configured secrets verify ${[...known].join(", ")}: configure the matching secret`,
      { webhookId: id },
    );
  }
  return refuse(
    "bad_signature",
    "No signature matched. Usually the body is not the bytes that were sent (pass the raw body: parsed and re-serialised JSON never matches) or the secret is not this endpoint's (each endpoint has its own whsec_; during a rotation configure both the old and the new)",
    { webhookId: id },
  );
}

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
 * Checks one delivery's headers, body, signature and timestamp, in that order. The signature comes
 * before the timestamp so that a clock-skew message is only given for an authentic delivery, where
 * the measured offset means something.
 */
export async function checkSignature(
  check: SignatureCheck,
  input: WebhookInput | Request,
): Promise<VerifiedSignature> {
  const parts = await inputParts(input);
  const delivery = readDeliveryHeaders(parts.headers);
  const content: SignedContent = {
    id: delivery.id,
    timestamp: delivery.timestamp,
    body: rawBody(parts.body),
  };
  let matched = false;
  for (const scheme of check.schemes) {
    const values = delivery.signatures
      .filter((entry) => entry.version === scheme.version)
      .map((e) => e.value);
    if (values.length === 0) continue;
    const result = scheme.verify(content, values);
    matched = isPromiseLike(result) ? await result : result;
    if (matched) break;
  }
  if (!matched) throw badSignature(delivery.id, delivery.signatures, check.schemes);
  checkTimestamp(delivery.id, delivery.seconds, check.now(), check.toleranceSeconds);
  return { id: delivery.id, timestamp: delivery.seconds, body: content.body };
}

/**
 * Claims an accepted `webhook-id` for `windowMs`. A second claim within the window is refused as
 * `replayed`; a store that fails is `REPLAY_STORE_FAILED` (retryable), never a pass and never a bad
 * signature.
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
