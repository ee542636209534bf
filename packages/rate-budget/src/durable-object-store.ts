import {
  type DurableObjectNamespaceLike,
  type DurableObjectStoreOptions,
  durableObjectStore,
} from "@promo-review/store/cloudflare";
import type { BudgetStore } from "./store.js";

/**
 * Options of {@link durableObjectBudgetStore}; `timeoutMs` and the rest are the store kit's
 * `SharedStoreOptions`.
 * @deprecated use `durableObjectStore(namespace, options)` from `@promo-review/store/cloudflare`.
 */
export interface DurableObjectBudgetStoreOptions extends Omit<DurableObjectStoreOptions, "prefixes"> {
  /** Prefix of every object name (default `"promo-review:rate-budget:"`), to share a namespace safely. */
  prefix?: string | undefined;
}

/**
 * Budgets on Durable Objects: `durableObjectStore(namespace, { prefixes: { window: prefix } })` under
 * its old name.
 * @deprecated use `durableObjectStore(namespace)` from `@promo-review/store/cloudflare` (or
 * `@promo-review/sdk/cloudflare`) and pass it as `store`; it serves the webhook claims and the upload
 * resume points too, on one `PromoReviewState` binding.
 * @param namespace the binding of the {@link BudgetObject} (now `PromoReviewState`) class.
 */
export function durableObjectBudgetStore(
  namespace: DurableObjectNamespaceLike,
  options: DurableObjectBudgetStoreOptions = {},
): BudgetStore {
  return durableObjectStore(namespace, { ...options, prefixes: { window: options.prefix } });
}
