/**
 * Shared rate budgets for Cloudflare Workers on Durable Objects: {@link BudgetObject} (export it from
 * your Worker and bind it in wrangler) and {@link durableObjectBudgetStore} (a `BudgetStore` over that
 * binding). Workers KV is not offered: it is eventually consistent and has no atomic read-modify-write,
 * so isolates would overspend a window together.
 * @packageDocumentation
 */
export { type BudgetCommand, BudgetObject } from "./budget-object.js";
export type { KeySnapshot } from "./budget-snapshot.js";
export {
  type DurableObjectBudgetStoreOptions,
  durableObjectBudgetStore,
} from "./durable-object-store.js";
export type {
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
  DurableObjectStubLike,
} from "./durable-object-types.js";
export type { WindowSpec } from "./rules.js";
export type { SharedStoreOptions } from "./shared-store.js";
export type { BudgetStore, Decision } from "./store.js";
