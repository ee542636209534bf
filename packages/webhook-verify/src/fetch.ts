/**
 * The Fetch entry, `@promo-review/webhook-verify/fetch`: the verifier for runtimes whose requests are
 * Fetch `Request`s (Cloudflare Workers, Deno, Bun, Vercel and Netlify edge functions, Hono, Next.js
 * route handlers), on Web Crypto. The same checks, answers, listeners, replay protection and
 * observation as the main entry's verifier; deliveries come as a `Request` only, so a bundle of it
 * carries no reader of other header and body shapes and no Node `(req, res)` handler.
 * @packageDocumentation
 */
import { webCrypto } from "./crypto-web.js";
import { readFetched } from "./fetch-input.js";
import { createVerifierMethods, type FetchWebhookVerifier } from "./verifier.js";
import type { WebhookVerifierOptions } from "./verify.js";

// The names both main entries export besides their crypto-bound functions (types, errors, the memory
// replay store); its runtime names are all a Fetch receiver uses.
export * from "./shared-exports.js";

/**
 * Makes a verifier for one endpoint whose deliveries come as Fetch `Request`s: secrets read once (a
 * malformed one throws now), keys imported once, replay protection on (memory store) unless
 * `store: false`. `verifier.handler(fn)` is the Fetch handler.
 */
export function createWebhookVerifier(options: WebhookVerifierOptions): FetchWebhookVerifier {
  return createVerifierMethods(webCrypto, options, readFetched);
}
