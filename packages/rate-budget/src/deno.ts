/**
 * The Deno KV budget store under its old name: `denoKvBudgetStore(kv)` is now `denoKvStore(kv)` from
 * `@promo-review/store/deno` (or `@promo-review/sdk/deno`), one store for the budget, the webhook claims
 * and the upload resume points. Kept for one minor release.
 * @packageDocumentation
 */
import {
  DENO_KV_MAX_ADMISSIONS,
  type DenoKvLike,
  type DenoKvStoreOptions,
  denoKvStore,
} from "@promo-review/store/deno";
import type { BudgetStore } from "./store.js";

export type {
  DenoKvAtomicLike,
  DenoKvKey,
  DenoKvKeyPart,
  DenoKvLike,
  SharedStoreOptions,
} from "@promo-review/store/deno";
export { DENO_KV_MAX_ADMISSIONS };

/**
 * Options of {@link denoKvBudgetStore}; `timeoutMs` and the rest are the kit's `SharedStoreOptions`.
 * @deprecated use `denoKvStore(kv, options)` from `@promo-review/store/deno`.
 */
export interface DenoKvBudgetStoreOptions extends Omit<DenoKvStoreOptions, "prefixes"> {
  /** Prefix of every key the store writes. Default `["promo-review", "rate-budget"]`. */
  prefix?: NonNullable<DenoKvStoreOptions["prefixes"]>["window"];
}

/**
 * Budgets in Deno KV: `denoKvStore(kv, { prefixes: { window: prefix } })` under its old name, with the
 * exact sliding-window rule of every store, a read and a checked commit per admission.
 * @deprecated use `denoKvStore(kv)` from `@promo-review/store/deno` (or `@promo-review/sdk/deno`) and
 * pass it as `store`; it serves the webhook claims and the upload resume points too.
 */
export function denoKvBudgetStore(kv: DenoKvLike, options: DenoKvBudgetStoreOptions = {}): BudgetStore {
  return denoKvStore(kv, { ...options, prefixes: { window: options.prefix } });
}
