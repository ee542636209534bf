/**
 * Shared state for Cloudflare Workers on Durable Objects: {@link PromoReviewState} (the one class to
 * export from your Worker and bind in wrangler) and {@link durableObjectStore} (the store over that
 * binding, for the budget, the webhook claims and the upload resume points). Workers KV is not
 * offered: it is eventually consistent and has no atomic read-modify-write, so isolates would
 * overspend a window or both claim one `webhook-id`.
 * @packageDocumentation
 */
export {
  type DurableObjectStoreOptions,
  type DurableObjectStorePrefixes,
  durableObjectAdapter,
  durableObjectStore,
} from "./durable-object-store.js";
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
} from "./durable-object-types.js";
export type { SharedStoreOptions } from "./shared-store.js";
export { PromoReviewState, type StateCommand } from "./state-object.js";
export type { Store } from "./store.js";
