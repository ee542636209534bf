import type { Decision, StoreWindow } from "./window.js";

/**
 * The shared state one client keeps, as the packages use it: `createRateBudget`, `createWebhookVerifier`
 * and `createUploader` (and `createClient`, for all three) each take one. Made by {@link memoryStore}
 * (one process, the default), or over a backend's {@link StoreAdapter} by `sharedStore`
 * (`redisStore`, `durableObjectStore`, `denoKvStore`, or your own), which gives every call a deadline
 * and fails closed or open as chosen.
 */
export interface Store {
  /** Where the state lives, for messages ("memory", "Redis"). */
  readonly where: string;
  /**
   * True when `take`, `settle` and `pause` always answer synchronously (the memory store): a budget
   * then admits a request with room without chaining a promise.
   */
  readonly synchronous?: boolean;

  /**
   * Takes one admission from every window for `key`, or none and says how long to wait. With a
   * `ticket` (unique across every process sharing the store), {@link settle} may later move the
   * admission to the time its response arrived.
   */
  take(key: string, windows: readonly StoreWindow[], ticket?: string): Decision | Promise<Decision>;
  /** Counts the admission taken with `ticket` from now on; an unknown (expired, settled) ticket is ignored. */
  settle(key: string, windows: readonly StoreWindow[], ticket: string): void | Promise<void>;
  /** Pauses `key` for `ms` from now, as the server said on a 429; a longer pause already in force stays. */
  pause(key: string, ms: number): void | Promise<void>;

  /** Claims `key` for `ttlMs`; resolves `false` when an unexpired claim holds it already. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** Gives up this store's claim of `key` (another process's claim that replaced an expired one stays). */
  release(key: string): Promise<void>;

  /** The value at `key`, or `undefined` when none is set or it expired. */
  get(key: string): Promise<string | undefined>;
  /** Sets the value at `key` for `ttlMs` from now. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Deletes the value at `key`. */
  delete(key: string): Promise<void>;

  /**
   * A compare-and-set of the value at `key`: when it holds `expected` (`undefined`: no value, or an
   * expired one), it becomes `value` for `ttlMs` from now (`undefined`: deleted). Resolves the value
   * the key held before, so the swap happened exactly when the answer equals `expected`; of
   * concurrent swaps from one value across every process, one wins. `swap(key, undefined, undefined)`
   * changes nothing and reads the value. Never served from a process's memory: a shared store fails
   * it closed whatever its `whenUnavailable` (what it promises cannot be kept by one process). A
   * batch journal keeps its records and lease with it. Optional: stores written before it lack it.
   */
  swap?(
    key: string,
    expected: string | undefined,
    value: string | undefined,
    ttlMs: number,
  ): Promise<string | undefined>;
}
