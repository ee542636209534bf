import type { MeterProviderLike, TelemetryOptions, TracerProviderLike } from "@promo-review/errors/telemetry";
import { checkSignature, claimOnce, type VerifiedSignature, type WebhookInput } from "./check-signature.js";
import type { CryptoBackend } from "./crypto-backend.js";
import { type PayloadWarning, parsePayload, type WebhookEvent } from "./payload.js";
import { createMemoryReplayStore, type ReplayStore } from "./replay-store.js";
import { ed25519Scheme, hmacScheme, type SignatureScheme } from "./schemes.js";
import { parseSecrets, type WebhookSecret } from "./secrets.js";
import { deliveryTracing } from "./tracing.js";

/** Options of a verifier. */
export interface WebhookVerifierOptions extends TelemetryOptions {
  /**
   * The endpoint's secret, or several during a rotation: `whsec_<base64>` for `v1` (HMAC-SHA256),
   * `whpk_<base64>` for `v1a` (Ed25519 public key), or raw key bytes. May be empty when `schemes` is given.
   */
  webhookSecret?: WebhookSecret | readonly WebhookSecret[];
  /** How far the `webhook-timestamp` may be from this clock, either way (default 300 s). */
  toleranceSeconds?: number;
  /** The clock in milliseconds (default `Date.now`); inject one in tests. */
  now?: () => number;
  /**
   * Where accepted `webhook-id`s are claimed (default: this process's memory), or `false` for no
   * replay protection. When several processes or isolates receive, pass the client's shared store:
   * `redisStore(client)`, `durableObjectStore(env.PROMO_REVIEW_STATE)`, `denoKvStore(kv)` from
   * `@promo-review/store` (any `ReplayStore` fits).
   */
  store?: ReplayStore | false;
  /**
   * The old name of {@link store}.
   * @deprecated pass `store`.
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
  /**
   * An OpenTelemetry `TracerProvider`: one INTERNAL span `webhooks.verify` per delivery (through
   * `verify`, `verifyDelivery` and the handlers; `webhooks.verifySignature` for `verifySignature`),
   * under the caller's active span, with `promo_review.webhook.id`, `.event_type`, `.outcome`
   * (`accepted`, `duplicate`, `refused`, `failed`) and `.reason`. Never the body, the signature or
   * another header's value.
   */
  tracerProvider?: TracerProviderLike | undefined;
  /** An OpenTelemetry `MeterProvider`: the counter `promo_review.webhook.deliveries`, by outcome and reason. */
  meterProvider?: MeterProviderLike | undefined;
}

export type { VerifiedSignature, WebhookInput };

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

/** Builds the schemes for the configured webhookSecret: one `v1` for all HMAC keys, one `v1a` for all public keys. */
function schemesFor(backend: CryptoBackend, options: WebhookVerifierOptions): SignatureScheme[] {
  const extra = options.schemes ?? [];
  const configured =
    options.webhookSecret === undefined && extra.length > 0 ? [] : parseSecrets(options.webhookSecret);
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

/**
 * Makes the verification steps for one crypto backend. Secrets are read now, so a malformed one fails
 * at start-up. Order per delivery: headers, body, signature, timestamp (`checkSignature`), payload,
 * replay claim.
 */
export function createVerifierCore(backend: CryptoBackend, options: WebhookVerifierOptions): VerifierCore {
  // Never empty: without `schemes`, parseSecrets demands at least one usable secret.
  const schemes = schemesFor(backend, options);
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const now = options.now ?? Date.now;
  const windowMs = (options.replayWindowSeconds ?? 2 * toleranceSeconds) * 1000;
  const warn = options.onWarning ?? ((warning: PayloadWarning) => console.warn(warning));
  const chosen = options.store ?? options.replayStore;
  const replayStore = chosen === false ? undefined : (chosen ?? createMemoryReplayStore({ now }));

  const check = { schemes, now, toleranceSeconds };
  const verifySignature = (input: WebhookInput | Request) => checkSignature(check, input);

  async function verifyDelivery(input: WebhookInput | Request): Promise<VerifiedDelivery> {
    const verified = await verifySignature(input);
    const { event, payload, warnings } = parsePayload(verified.body, verified.id);
    if (replayStore) await claimOnce(replayStore, verified.id, windowMs);
    for (const warning of warnings) warn(warning);
    return { id: verified.id, timestamp: verified.timestamp, event, payload, warnings };
  }

  // Wrapped here, so a delivery is one span whichever way it came in (`verify`, or a handler).
  const trace = deliveryTracing(options);
  return {
    replayStore,
    verifySignature: trace("webhooks.verifySignature", verifySignature),
    verifyDelivery: trace("webhooks.verify", verifyDelivery),
  };
}
