/**
 * Client-side rate budgets for the Promotion Compliance Review service: exact sliding windows,
 * pause on 429, a priority queue with signals and deadlines, ky hooks, and an in-memory store. The
 * Redis store is on the `@promo-review/rate-budget/redis` sub-path, so this entry imports no Node
 * built-in and no Redis client.
 * @packageDocumentation
 */

export {
  MemoryStore,
  type MemoryStoreOptions,
  SlidingWindowLog,
  type WindowLogSnapshot,
} from "@promo-review/store";
export { createRateBudget, RateBudget } from "./budget.js";
export type { Waited, WaitReason } from "./budget-telemetry.js";
export { type Clock, systemClock } from "./clock.js";
export { BUDGET_CODES } from "./errors.js";
export { budgetedFetch } from "./fetch.js";
export { keyIdOf } from "./key-id.js";
export { kyHooks } from "./ky-hooks.js";
export {
  type BudgetRequest,
  type BudgetRule,
  defaultBudgets,
  type RouteMatch,
  type RouteTarget,
  type WindowSpec,
} from "./rules.js";
export type { BudgetStore, Decision } from "./store.js";
export type {
  AcquireOptions,
  BudgetAfterResponseHook,
  BudgetBeforeRequestHook,
  BudgetBeforeRetryHook,
  BudgetKyHooks,
  BudgetTicket,
  FetchLike,
  KyBudgetContext,
  KyHookOptions,
  KyHookState,
  RateBudgetEvents,
  RateBudgetOptions,
  TicketOptions,
} from "./types.js";
