/**
 * The store kit of the Promotion Compliance Review SDK: one adapter interface for the shared state
 * the client's promises need (an atomic claim with expiry, the budget's exact sliding window, a value
 * with expiry), one helper that gives every backend call a deadline, an outage state with a probe,
 * and fails closed or open, and the in-memory store. The backends are on sub-paths:
 * `@promo-review/store/redis`, `/cloudflare` and `/deno`, so this entry imports no client.
 * @packageDocumentation
 */
export type { StoreAdapter, StoreCall, StoreFamily } from "./adapter.js";
export { STORE_CODES } from "./codes.js";
export { sameShape, takeFromLogs } from "./decide.js";
export { MemoryStore, type MemoryStoreOptions, memoryStore } from "./memory-store.js";
export { type CommitAttempt, type RetryCommitsOptions, retryCommits } from "./retry.js";
export { type SharedStoreOptions, sharedStore } from "./shared-store.js";
export { SlidingWindowLog, type WindowLogSnapshot } from "./sliding-window.js";
export type { Store } from "./store.js";
export type { Decision, StoreWindow } from "./window.js";
export {
  applyWindowOp,
  emptyWindowState,
  isWindowState,
  type StoredWindow,
  type WindowOp,
  type WindowState,
  windowStateEnd,
} from "./window-state.js";
