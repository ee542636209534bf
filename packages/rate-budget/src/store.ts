import type { Decision } from "@promo-review/store";
import type { WindowSpec } from "./rules.js";

export type { Decision } from "@promo-review/store";

/**
 * Where budgets live: the budget part of a `Store` from `@promo-review/store` (`memoryStore()`, the
 * default; `redisStore`, `durableObjectStore`, `denoKvStore`, or your own adapter through
 * `sharedStore`), any of which `createRateBudget({ store })` takes. A store decides for one key at a
 * time and must take from every window or from none, atomically, so that concurrent callers (in one
 * process or many) never overspend a window. Methods may answer synchronously (the memory store, which
 * keeps the fast path free of promises) or with a promise.
 */
export interface BudgetStore {
  /**
   * True when `take` and `pause` always answer synchronously: the budget then admits a request with
   * room without chaining a promise, and without queueing behind an asynchronous decision.
   */
  readonly synchronous?: boolean;
  /**
   * Takes one admission from every window of `windows` for `key`, or none and says how long to wait.
   * A paused key admits nothing. With a `ticket` (unique across every process sharing the store),
   * `settle` may later move the admission to the time its response arrived.
   */
  take(key: string, windows: readonly WindowSpec[], ticket?: string): Decision | Promise<Decision>;
  /**
   * Counts the admission taken with `ticket` from now on instead of from its decision: the server
   * counted the request when it arrived, which was before now. A ticket unknown (expired, settled)
   * is ignored. Optional: without it admissions count from their decision time (plus the margin).
   */
  settle?(key: string, windows: readonly WindowSpec[], ticket: string): void | Promise<void>;
  /**
   * Pauses `key` for `ms` from now, as the server said on a 429. A longer pause already in force
   * stays (later wins); nothing is clamped.
   */
  pause(key: string, ms: number): void | Promise<void>;
}
