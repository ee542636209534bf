import { isPromoReviewError, PromoReviewError } from "@promo-review/errors";
import { type RawBody, rawBody } from "./body.js";
import { type CryptoBackend, isPromiseLike, type SignedContent } from "./crypto-backend.js";
import { type HeadersInput, readDeliveryHeaders, type SignatureEntry } from "./headers.js";
import { type PayloadWarning, parsePayload, type WebhookEvent } from "./payload.js";
import { refuse } from "./refuse.js";
import { createMemoryReplayStore, type ReplayStore } from "./replay-store.js";
import { ed25519Scheme, hmacScheme, type SignatureScheme } from "./schemes.js";
import { parseSecrets, type WebhookSecret } from "./secrets.js";

/** A delivery as a server framework hands it over: its headers and its raw body. */
export interface WebhookInput {
  headers: HeadersInput;
  /** The body exactly as received: bytes, an `ArrayBuffer`, or the text. Never a parsed object. */
  body: RawBody;
}

/** Options of a verifier. */
export interface WebhookVerifierOptions {
  /**
   * The endpoint's secret, or several during a rotation: `whsec_<base64>` for `v1` (HMAC-SHA256),
   * `whpk_<base64>` for `v1a` (Ed25519 public key), or raw key bytes. May be empty when `schemes` is given.
   */
  secrets?: WebhookSecret | readonly WebhookSecret[];
  /** How far the `webhook-timestamp` may be from this clock, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The clock in milliseconds (default `Date.now`); inject one in tests. */
  now?: () => number;
  /**
   * Where accepted `webhook-id`s are recorded (default: a memory store), or `false` for no replay
   * protection. Use the Redis store when several processes receive.
   */
  replayStore?: ReplayStore | false;
  /** How long an accepted id is kept (default twice the tolerance: a timestamp is valid that long). */
  replayWindowSeconds?: number;
  /** Further signature schemes, tried after the built-in ones. */
  schemes?: readonly SignatureScheme[];
  /**
   * Called with each place where an accepted delivery's body does not match what the spec states
   * (the delivery is still delivered: the signature proves who sent it). Default: `console.warn`.
   */
  onWarning?: (warning: PayloadWarning) => void;
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

/** The verification steps, shared by the verifier object and the handlers. */
export interface VerifierCore {
  readonly replayStore: ReplayStore | undefined;
  verifySignature(input: WebhookInput | Request): Promise<VerifiedSignature>;
  verifyDelivery(input: WebhookInput | Request): Promise<VerifiedDelivery>;
}

function isRequest(input: unknown): input is Request {
  return (
    typeof input === "object" &&
    input !== null &&
    typeof (input as Request).arrayBuffer === "function" &&
    typeof (input as Request).method === "string"
  );
}

async function readRequest(request: Request): Promise<WebhookInput> {
  if (request.bodyUsed) {
    throw refuse(
      "parsed_body",
      "The request body was read already (a Request can be read once): pass { headers, body } with the bytes you read",
    );
  }
  return { headers: request.headers, body: await request.arrayBuffer() };
}

function inputParts(input: unknown): { headers: unknown; body: unknown } {
  if (typeof input !== "object" || input === null) {
    throw refuse("missing_headers", "Nothing to verify: pass { headers, body } or a Fetch Request");
  }
  const { headers, body } = input as { headers?: unknown; body?: unknown };
  return { headers, body };
}

/** Builds the schemes for the configured secrets: one `v1` for all HMAC keys, one `v1a` for all public keys. */
function schemesFor(backend: CryptoBackend, options: WebhookVerifierOptions): SignatureScheme[] {
  const extra = options.schemes ?? [];
  const configured = options.secrets === undefined && extra.length > 0 ? [] : parseSecrets(options.secrets);
  const hmacKeys: Uint8Array[] = [];
  const publicKeys: Uint8Array[] = [];
  for (const secret of configured) {
    if (secret.kind === "hmac") hmacKeys.push(secret.key);
    else if (secret.kind === "ed25519-public") publicKeys.push(secret.key);
  }
  return [
    ...(hmacKeys.length ? [hmacScheme(backend, hmacKeys)] : []),
    ...(publicKeys.length ? [ed25519Scheme(backend, publicKeys)] : []),
    ...extra,
  ];
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
 * Makes the verification steps for one crypto backend. Secrets are read now, so a malformed one fails
 * at start-up. Order per delivery: headers, body, signature, timestamp, payload, replay claim. The
 * signature comes before the timestamp so that a clock-skew message is only given for an authentic
 * delivery, where the measured offset means something.
 */
export function createVerifierCore(backend: CryptoBackend, options: WebhookVerifierOptions): VerifierCore {
  // Never empty: without `schemes`, parseSecrets demands at least one usable secret.
  const schemes = schemesFor(backend, options);
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const now = options.now ?? Date.now;
  const windowMs = (options.replayWindowSeconds ?? 2 * toleranceSeconds) * 1000;
  const warn = options.onWarning ?? ((warning: PayloadWarning) => console.warn(warning));
  const replayStore =
    options.replayStore === false ? undefined : (options.replayStore ?? createMemoryReplayStore({ now }));

  async function verifySignature(input: WebhookInput | Request): Promise<VerifiedSignature> {
    const parts = isRequest(input) ? await readRequest(input) : inputParts(input);
    const delivery = readDeliveryHeaders(parts.headers);
    const content: SignedContent = {
      id: delivery.id,
      timestamp: delivery.timestamp,
      body: rawBody(parts.body),
    };
    let matched = false;
    for (const scheme of schemes) {
      const values = delivery.signatures
        .filter((entry) => entry.version === scheme.version)
        .map((e) => e.value);
      if (values.length === 0) continue;
      const result = scheme.verify(content, values);
      matched = isPromiseLike(result) ? await result : result;
      if (matched) break;
    }
    if (!matched) throw badSignature(delivery.id, delivery.signatures, schemes);
    checkTimestamp(delivery.id, delivery.seconds, now(), toleranceSeconds);
    return { id: delivery.id, timestamp: delivery.seconds, body: content.body };
  }

  async function verifyDelivery(input: WebhookInput | Request): Promise<VerifiedDelivery> {
    const verified = await verifySignature(input);
    const { event, payload, warnings } = parsePayload(verified.body, verified.id);
    if (replayStore) {
      let claimed: boolean;
      try {
        claimed = await replayStore.claim(verified.id, windowMs);
      } catch (cause) {
        if (isPromoReviewError(cause)) throw cause;
        // A store that is down must not let replays through, nor look like a bad signature.
        throw new PromoReviewError({
          code: "REPLAY_STORE_FAILED",
          message: `The replay store failed to claim webhook-id ${verified.id}; the delivery was not processed`,
          retryable: true,
          cause,
        });
      }
      if (!claimed) {
        throw refuse(
          "replayed",
          `The webhook-id ${verified.id} was already accepted within the replay window`,
          {
            webhookId: verified.id,
          },
        );
      }
    }
    for (const warning of warnings) warn(warning);
    return { id: verified.id, timestamp: verified.timestamp, event, payload, warnings };
  }

  return { replayStore, verifySignature, verifyDelivery };
}
