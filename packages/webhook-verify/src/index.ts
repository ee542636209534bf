/**
 * Verify and receive `evaluation-completed` webhooks of the Promotion Compliance Review service
 * (Standard Webhooks) on every runtime. This is the Web Crypto entry, used everywhere but Node (which
 * gets `index.node.ts` through the `node` export condition, with the same API and results).
 * @packageDocumentation
 */
import { bindBackend } from "./bind.js";
import { webCrypto } from "./crypto-web.js";

export * from "./shared-exports.js";

const api = bindBackend(webCrypto);

/** {@inheritDoc WebhookApi.createWebhookVerifier} */
export const createWebhookVerifier = api.createWebhookVerifier;
/** {@inheritDoc WebhookApi.verifyWebhook} */
export const verifyWebhook = api.verifyWebhook;
/** {@inheritDoc WebhookApi.sign} */
export const sign = api.sign;
/** Which crypto this entry uses: `"web"` here, `"node"` in the Node entry. */
export const cryptoBackend = webCrypto.name;
