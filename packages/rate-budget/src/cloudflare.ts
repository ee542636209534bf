/**
 * Shared rate budgets for Cloudflare Workers, under their old names: `BudgetObject` and
 * `durableObjectBudgetStore` are now `PromoReviewState` and `durableObjectStore` from
 * `@promo-review/store/cloudflare` (or `@promo-review/sdk/cloudflare`), one class and one store for the
 * budget, the webhook claims and the upload resume points. Kept for one minor release.
 * @packageDocumentation
 */
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
  SharedStoreOptions,
} from "@promo-review/store/cloudflare";
export { type BudgetCommand, BudgetObject } from "./budget-object.js";
export {
  type DurableObjectBudgetStoreOptions,
  durableObjectBudgetStore,
} from "./durable-object-store.js";
export type { WindowSpec } from "./rules.js";
export type { BudgetStore, Decision } from "./store.js";
