/**
 * Verify and receive `evaluation-completed` webhooks of the Promotion Compliance Review service
 * (Standard Webhooks). This is the Node entry (the `node` export condition): `node:crypto`, synchronous
 * HMAC and `timingSafeEqual`; the API and results are those of the Web Crypto entry (`index.ts`).
 * @packageDocumentation
 */
import { createVerifierWith, type VerifyWebhookOptions, verifyWebhookWith } from "./bind.js";
import { nodeCrypto, nodeSigning } from "./crypto-node.js";
import type { WebhookHeaders } from "./headers.js";
import type { WebhookEvent } from "./payload.js";
import { type SignOptions, signWith } from "./sign.js";
import type { WebhookVerifier } from "./verifier.js";
import type { WebhookInput, WebhookVerifierOptions } from "./verify.js";

export * from "./shared-exports.js";

// Plain functions, not an object bound at import: a bundler then keeps only what is imported
// (`sign` alone does not pull the verifier, its parser and its listeners).

/** {@inheritDoc WebhookApi.createWebhookVerifier} */
export function createWebhookVerifier(options: WebhookVerifierOptions): WebhookVerifier {
  return createVerifierWith(nodeCrypto, options);
}

/** {@inheritDoc WebhookApi.verifyWebhook} */
export function verifyWebhook(
  input: WebhookInput | Request,
  options: VerifyWebhookOptions,
): Promise<WebhookEvent> {
  return verifyWebhookWith(nodeCrypto, input, options);
}

/** {@inheritDoc WebhookApi.sign} */
export function sign(options: SignOptions): Promise<WebhookHeaders> {
  return signWith(nodeSigning, options);
}

/** Which crypto this entry uses: `"node"` here, `"web"` in the other entry. */
export const cryptoBackend: "web" | "node" = "node";
