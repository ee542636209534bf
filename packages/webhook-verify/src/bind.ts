import { readInput, type WebhookInput } from "./body.js";
import type { CryptoBackend } from "./crypto-backend.js";
import type { WebhookHeaders } from "./headers.js";
import { nodeHandler } from "./node-handler.js";
import type { WebhookEvent } from "./payload.js";
import type { SignOptions } from "./sign.js";
import { createVerifierMethods, type WebhookVerifier } from "./verifier.js";
import type { WebhookVerifierOptions } from "./verify.js";

/** Options of the one-shot {@link WebhookApi.verifyWebhook}: no replay store (make a verifier for that). */
export type VerifyWebhookOptions = Omit<
  WebhookVerifierOptions,
  "store" | "replayStore" | "replayWindowSeconds"
>;

/** The functions each package entry exports, bound to that entry's crypto. */
export interface WebhookApi {
  /**
   * Makes a verifier for one endpoint: secrets read once (a malformed one throws now), keys imported
   * once, replay protection on (memory store) unless `store: false`.
   */
  createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier;
  /**
   * Verifies one delivery and returns its typed event, without replay protection. Verifiers are
   * cached per secret, so calling it per request does not import keys again.
   */
  verifyWebhook(input: WebhookInput | Request, options: VerifyWebhookOptions): Promise<WebhookEvent>;
  /** Signs a body as a Standard Webhooks sender does; returns the three headers to send. */
  sign(options: SignOptions): Promise<WebhookHeaders>;
}

// Enough for the secrets of a few endpoints; beyond it the oldest is dropped (a verifier is cheap to rebuild).
const CACHE_SIZE = 16;

/** Verifiers cached per backend and secret set, made on first use (nothing is allocated at import). */
let caches: WeakMap<CryptoBackend, Map<string, WebhookVerifier>> | undefined;

function cachedVerifier(backend: CryptoBackend, options: VerifyWebhookOptions): WebhookVerifier {
  const secrets = Array.isArray(options.webhookSecret) ? options.webhookSecret : [options.webhookSecret];
  // A verifier with an observer is not shared: another call with the same secrets may pass none.
  const cacheable =
    !options.schemes &&
    !options.now &&
    !options.onWarning &&
    !options.telemetry &&
    secrets.every((s) => typeof s === "string");
  const options_ = { ...options, store: false as const };
  if (!cacheable) return createVerifierWith(backend, options_);
  caches ??= new WeakMap();
  let cache = caches.get(backend);
  if (!cache) {
    cache = new Map();
    caches.set(backend, cache);
  }
  const key = JSON.stringify([secrets, options.toleranceSeconds ?? null]);
  let verifier = cache.get(key);
  if (!verifier) {
    verifier = createVerifierWith(backend, options_);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, verifier);
  }
  return verifier;
}

/**
 * {@link WebhookApi.verifyWebhook} on one crypto backend (each package entry binds its own). Async, so
 * a malformed secret rejects like any other refusal instead of throwing before a promise exists.
 */
export async function verifyWebhookWith(
  backend: CryptoBackend,
  input: WebhookInput | Request,
  options: VerifyWebhookOptions,
): Promise<WebhookEvent> {
  return cachedVerifier(backend, options).verify(input);
}

/** Builds the main entries' verifier on one crypto backend: every input shape, and the Node handler. */
export function createVerifierWith(backend: CryptoBackend, options: WebhookVerifierOptions): WebhookVerifier {
  return createVerifierMethods<WebhookInput | Request, Pick<WebhookVerifier, "nodeHandler">>(
    backend,
    options,
    readInput,
    (receiver) => ({ nodeHandler: (fn, handlerOptions) => nodeHandler(receiver, fn, handlerOptions) }),
  );
}
