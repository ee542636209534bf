/**
 * Verify and receive `evaluation-completed` webhooks of the Promotion Compliance Review service
 * (Standard Webhooks) on every runtime. This is the Web Crypto entry, used everywhere but Node (which
 * gets `index.node.ts` through the `node` export condition, with the same API and results).
 * @packageDocumentation
 */
import { createVerifierWith, type VerifyWebhookOptions, verifyWebhookWith } from "./bind.js";
import { webCrypto, webSigning } from "./crypto-web.js";
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
  return createVerifierWith(webCrypto, options);
}

/** {@inheritDoc WebhookApi.verifyWebhook} */
export function verifyWebhook(
  input: WebhookInput | Request,
  options: VerifyWebhookOptions,
): Promise<WebhookEvent> {
  return verifyWebhookWith(webCrypto, input, options);
}

/** {@inheritDoc WebhookApi.sign} */
export function sign(options: SignOptions): Promise<WebhookHeaders> {
  return signWith(webSigning, options);
}

/** Which crypto this entry uses: `"web"` here, `"node"` in the other entry. */
export const cryptoBackend: "web" | "node" = "web";
