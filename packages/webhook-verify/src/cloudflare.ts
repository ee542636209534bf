/**
 * Replay protection for Cloudflare Workers, under its old names: `ReplayStoreObject` and
 * `durableObjectReplayStore` are now `PromoReviewState` and `durableObjectStore` from
 * `@promo-review/store/cloudflare` (or `@promo-review/sdk/cloudflare`), one class and one store for the
 * webhook claims, the budget and the upload resume points. Kept for one minor release.
 * @packageDocumentation
 */
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
} from "@promo-review/store/cloudflare";
export {
  type DurableObjectReplayStoreOptions,
  durableObjectReplayStore,
} from "./durable-object-store.js";
export { type ReplayCommand, ReplayStoreObject } from "./replay-object.js";
export type { ReplayStore } from "./replay-store.js";
