/**
 * Verify and receive `evaluation-completed` webhooks of the Promotion Compliance Review service
 * (Standard Webhooks). This is the Node entry (the `node` export condition): `node:crypto`, synchronous
 * HMAC and `timingSafeEqual`; the API and results are those of the Web Crypto entry (`index.ts`).
 * @packageDocumentation
 */
import { bindBackend } from "./bind.js";
import { nodeCrypto } from "./crypto-node.js";

export * from "./shared-exports.js";

const api = bindBackend(nodeCrypto);

/** {@inheritDoc WebhookApi.createWebhookVerifier} */
export const createWebhookVerifier = api.createWebhookVerifier;
/** {@inheritDoc WebhookApi.verifyWebhook} */
export const verifyWebhook = api.verifyWebhook;
/** {@inheritDoc WebhookApi.sign} */
export const sign = api.sign;
/** Which crypto this entry uses: `"node"` here, `"web"` in the default entry. */
export const cryptoBackend = nodeCrypto.name;
