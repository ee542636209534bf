import type { WindowSpec } from "./rules.js";

/** A store's answer to "may one more request go now?". */
export type Decision =
  | { ok: true }
  | {
      ok: false;
      /** Milliseconds until a retry can succeed at the earliest (a lower bound: others may take the room). */
      waitMs: number;
      /** Ids of the windows that are full (empty while paused). */
      full: string[];
      /** True when the key is paused after a 429 rather than out of room. */
      paused: boolean;
    };

/**
 * Where budgets live. A store decides for one key at a time and must take from every window or from
 * none, atomically, so that concurrent callers (in one process or many) never overspend a window.
 * Methods may answer synchronously (the memory store, which keeps the fast path free of promises) or
 * with a promise (Redis).
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
