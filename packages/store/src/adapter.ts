/**
 * The one interface a backend implements: the shared state the client's three promises need. A
 * webhook handled once needs an atomic claim with expiry; one budget per key needs the exact
 * sliding-window operation; an upload that survives a restart needs a value with expiry. An adapter
 * only talks to its backend: `sharedStore` adds the deadline, the outage state, the probe and
 * failing closed or open, the same for every backend.
 */
import type { Decision, StoreWindow } from "./window.js";

/** What every adapter call is given: when its caller stops waiting. */
export interface StoreCall {
  /** Fires when the call's deadline passes: the caller has failed the call (closed or open). */
  readonly signal: AbortSignal;
  /**
   * The deadline as epoch milliseconds (`Date.now()`). A backend that can check it where the state is
   * (a Durable Object) refuses a change arriving later: its caller has already given up on it.
   * `Infinity` for the undo and probe calls, which nobody waits on.
   */
  readonly notAfter: number;
}

/** The three kinds of state, for an adapter's {@link StoreAdapter.probe} and for messages. */
export type StoreFamily = "window" | "claim" | "value";

/**
 * A backend for shared state. Every method answers with a promise and may reject on any failure;
 * none needs its own timer (the {@link StoreCall}'s deadline is kept by `sharedStore`). Keys
 * are opaque strings chosen by the packages; an adapter prefixes them per family as it likes, so the
 * three families never meet.
 */
export interface StoreAdapter {
  /** Where the state lives, for messages ("Redis", "Durable Object", "Deno KV"). */
  readonly where: string;

  /**
   * Takes one admission from every window of `windows` for `key`, or none, atomically across every
   * process sharing the backend, by the exact sliding-window rule (`takeFromLogs`, or
   * `applyWindowOp` on a state read and written with a compare-and-set). A paused key admits nothing.
   * The admission is recorded as `member` (unique across processes); when `ticketed`, it counts from
   * its decision plus the window's `holdMs` until {@link settle}d.
   */
  take(
    key: string,
    windows: readonly StoreWindow[],
    member: string,
    ticketed: boolean,
    call: StoreCall,
  ): Promise<Decision>;
  /** Counts the ticket's admission from now on; an unknown ticket is ignored. */
  settle(key: string, windows: readonly StoreWindow[], ticket: string, call: StoreCall): Promise<void>;
  /** Pauses `key` for `ms` from now; a longer pause already in force stays. */
  pause(key: string, ms: number, call: StoreCall): Promise<void>;
  /**
   * Removes the admission recorded as `member`: sent after a take failed on the caller's side (its
   * deadline passed) but may still reach the backend later (a client's offline queue). Optional.
   */
  forget?(key: string, windows: readonly StoreWindow[], member: string, call: StoreCall): Promise<unknown>;

  /**
   * Records `token` at `key` for `ttlMs` unless an unexpired claim holds it; resolves whether this
   * call claimed it. Of concurrent claims of one key across every process, exactly one wins.
   */
  claim(key: string, token: string, ttlMs: number, call: StoreCall): Promise<boolean>;
  /**
   * Removes the claim at `key`: only if it still holds `token` when one is given (the undo of a late
   * claim, the release of this store's own claim), whoever holds it otherwise.
   */
  unclaim(key: string, token: string | undefined, call: StoreCall): Promise<void>;

  /** The value at `key`, or `undefined` when none is set or it expired. */
  get(key: string, call: StoreCall): Promise<string | undefined>;
  /** Sets the value at `key`, expiring `ttlMs` after this write. */
  set(key: string, value: string, ttlMs: number, call: StoreCall): Promise<void>;
  /** Deletes the value at `key` (nothing when none is set). */
  delete(key: string, call: StoreCall): Promise<void>;
  /**
   * The compare-and-set of {@link Store.swap} on the values' keys, atomically across every process:
   * when `key` holds `expected` (`undefined`: nothing, or expired), sets `value` for `ttlMs`
   * (`undefined`: deletes it); answers the value held before. Optional: `sharedStore` refuses a swap
   * clearly without it.
   */
  swap?(
    key: string,
    expected: string | undefined,
    value: string | undefined,
    ttlMs: number,
    call: StoreCall,
  ): Promise<string | undefined>;

  /**
   * A cheap call without a deadline that answers once the backend is reachable again (a client that
   * holds commands until it reconnects, as ioredis's offline queue does), so the backend is used again
   * the moment it is back. Given the family and key that failed, so a Redis Cluster routes it to the
   * node holding that key. Optional: without it, the first call `recheckMs` after a failure asks.
   */
  probe?(family: StoreFamily, key: string): Promise<unknown>;
}
