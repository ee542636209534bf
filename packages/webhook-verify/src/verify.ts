import type { Observer } from "@promo-review/errors/observe";
import type { WebhookInput } from "./body.js";
import type { CryptoBackend } from "./crypto-backend.js";
import {
  authenticate,
  type DeliveryRules,
  type ReceivedDelivery,
  type VerifiedDelivery,
  type VerifiedSignature,
  verifyDelivery,
} from "./delivery.js";
import type { PayloadWarning } from "./payload.js";
import { createMemoryReplayStore, type ReplayStore } from "./replay-store.js";
import { ed25519Scheme, hmacScheme, type SignatureScheme } from "./schemes.js";
import { parseSecrets, type WebhookSecret } from "./secrets.js";
import { deliveryTracing } from "./tracing.js";

/** Options of a verifier. */
export interface WebhookVerifierOptions {
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
   * What observes each delivery: one operation `webhooks.verify` per delivery (through `verify`,
   * `verifyDelivery` and the handlers; `webhooks.verifySignature` for `verifySignature`), and its
   * outcome (`accepted`, `duplicate`, `refused` with its reason, `failed`), `webhook-id` and event type.
   * `openTelemetry({ tracerProvider, meterProvider })` from `@promo-review/opentelemetry` makes of it a
   * span under the caller's active span and the counter `promo_review.webhook.deliveries`. Never the
   * body, the signature or another header's value. Default: none, and no observation code runs.
   */
  telemetry?: Observer | undefined;
}

export type { VerifiedDelivery, VerifiedSignature, WebhookInput };

/**
 * Steps 1 and 2 of a delivery (see delivery.ts) for deliveries given as `I`: the Fetch entry's reads a
 * `Request` or what its handler read (`readFetched`), the main entries' any shape (`readInput`).
 */
export type ReadDelivery<I> = (input: I) => Promise<ReceivedDelivery>;

/** The verification steps, shared by the verifier object and the handlers, for deliveries given as `I`. */
export interface VerifierCore<I> {
  readonly replayStore: ReplayStore | undefined;
  verifySignature(input: I): Promise<VerifiedSignature>;
  verifyDelivery(input: I): Promise<VerifiedDelivery>;
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
 * Makes the verification steps for one crypto backend, reading deliveries with `read`: the options
 * read into a delivery's rules (see `delivery.ts` for the steps themselves). Secrets are read now, so a malformed one fails at start-up.
 */
export function createVerifierCore<I>(
  backend: CryptoBackend,
  options: WebhookVerifierOptions,
  read: ReadDelivery<I>,
): VerifierCore<I> {
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const now = options.now ?? Date.now;
  const chosen = options.store ?? options.replayStore;
  const rules: DeliveryRules = {
    // Never empty: without `schemes`, parseSecrets demands at least one usable secret.
    schemes: schemesFor(backend, options),
    now,
    toleranceSeconds,
    replayStore: chosen === false ? undefined : (chosen ?? createMemoryReplayStore({ now })),
    windowMs: (options.replayWindowSeconds ?? 2 * toleranceSeconds) * 1000,
    warn: options.onWarning ?? ((warning: PayloadWarning) => console.warn(warning)),
  };
  // Wrapped here, so a delivery is one published outcome whichever way it came in (`verify`, or a handler).
  const trace = deliveryTracing(options);
  return {
    replayStore: rules.replayStore,
    // The input is read inside the traced check, so a refusal of its headers or body is published too.
    verifySignature: trace("webhooks.verifySignature", async (input: I) =>
      authenticate(rules, await read(input)),
    ),
    verifyDelivery: trace("webhooks.verify", async (input: I) => verifyDelivery(rules, await read(input))),
  };
}
