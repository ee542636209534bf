import { sameShape, takeFromLogs } from "./decide.js";
import { SlidingWindowLog } from "./sliding-window.js";
import type { Store } from "./store.js";
import type { Decision, StoreWindow } from "./window.js";

/** The windows of one key: one log per window id, shared by every set of windows that names it. */
interface KeyState {
  byId: Map<string, SlidingWindowLog>;
  bySet: WeakMap<readonly StoreWindow[], SlidingWindowLog[]>;
}

/** A value or a claim, and when it stops counting. */
interface Held {
  value: string;
  expiresAt: number;
}

function current(logs: SlidingWindowLog[], windows: readonly StoreWindow[]): boolean {
  for (let i = 0; i < logs.length; i++) if (!sameShape(logs[i]!, windows[i]!)) return false;
  return true;
}

/** The entry at `key` unless it expired (then dropped). */
function live(entries: Map<string, Held>, key: string, now: number): Held | undefined {
  const held = entries.get(key);
  if (held === undefined || held.expiresAt > now) return held;
  entries.delete(key);
  return undefined;
}

/**
 * Stores `held` at `key` (moved to the end: insertion order is expiry order when TTLs are alike), and
 * drops expired entries from the front, so memory stays bounded by what one TTL holds. No timer runs.
 */
function put(entries: Map<string, Held>, key: string, held: Held, now: number): void {
  for (const [k, h] of entries) {
    if (h.expiresAt > now) break;
    entries.delete(k);
  }
  entries.delete(key);
  entries.set(key, held);
}

/** Options of {@link memoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The time source in milliseconds; share it with the budget when testing with a manual clock.
   * Default `performance.now()` (monotonic: a wall clock can jump backwards and reopen a window).
   */
  clock?: { now(): number } | undefined;
}

/**
 * State in this process's memory: the default store. Budget decisions are synchronous and
 * allocation-free, so an admission with room costs no promise. No timer, no global state: an idle
 * store is plain data. Memory is bounded by the limits (at most `limit` admissions per window per key)
 * and by the TTLs of claims and values (expired ones are dropped as new ones arrive).
 */
export class MemoryStore implements Store {
  /** `"memory"`. */
  readonly where = "memory";
  /** Always: see {@link Store.synchronous}. */
  readonly synchronous = true;
  readonly #clock: { now(): number };
  readonly #keys = new Map<string, KeyState>();
  readonly #pausedUntil = new Map<string, number>();
  readonly #claims = new Map<string, Held>();
  readonly #values = new Map<string, Held>();
  #lastKey: string | undefined;
  #lastWindows: readonly StoreWindow[] | undefined;
  #lastLogs: SlidingWindowLog[] | undefined;

  /** @param options see {@link MemoryStoreOptions}. */
  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = options.clock ?? { now: () => performance.now() };
  }

  #logsOf(key: string, windows: readonly StoreWindow[]): SlidingWindowLog[] {
    let state = this.#keys.get(key);
    if (state === undefined) {
      state = { byId: new Map(), bySet: new WeakMap() };
      this.#keys.set(key, state);
    }
    // Callers reuse one array per set of windows, so the hot path is one WeakMap lookup.
    const cached = state.bySet.get(windows);
    if (cached !== undefined && current(cached, windows)) return cached;
    const logs = windows.map((w) => {
      let log = state.byId.get(w.id);
      // A window re-declared with another limit or length starts afresh rather than misjudging.
      if (log === undefined || !sameShape(log, w)) {
        log = new SlidingWindowLog(w.limit, w.windowMs, w.holdMs);
        state.byId.set(w.id, log);
      }
      return log;
    });
    state.bySet.set(windows, logs);
    return logs;
  }

  /** See {@link Store.take}: checks every window, then records in all of them. */
  take(key: string, windows: readonly StoreWindow[], ticket?: string): Decision {
    const now = this.#clock.now();
    if (this.#pausedUntil.size > 0) {
      const pausedUntil = this.#pausedUntil.get(key);
      if (pausedUntil !== undefined) {
        if (pausedUntil > now) return { ok: false, waitMs: pausedUntil - now, full: [], paused: true };
        this.#pausedUntil.delete(key);
      }
    }
    // One budget asks for the same few window sets over and over: remember the last one.
    let logs = this.#lastLogs;
    if (
      windows !== this.#lastWindows ||
      key !== this.#lastKey ||
      logs === undefined ||
      !current(logs, windows)
    ) {
      logs = this.#logsOf(key, windows);
      this.#lastKey = key;
      this.#lastWindows = windows;
      this.#lastLogs = logs;
    }
    return takeFromLogs(logs, windows, now, ticket);
  }

  /** See {@link Store.settle}. */
  settle(key: string, windows: readonly StoreWindow[], ticket: string): void {
    const now = this.#clock.now();
    for (const log of this.#logsOf(key, windows)) log.settle(ticket, now);
  }

  /** See {@link Store.pause}. */
  pause(key: string, ms: number): void {
    const until = this.#clock.now() + ms;
    if (until > (this.#pausedUntil.get(key) ?? Number.NEGATIVE_INFINITY)) this.#pausedUntil.set(key, until);
  }

  /** See {@link Store.claim}. */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    const now = this.#clock.now();
    if (live(this.#claims, key, now) !== undefined) return false;
    put(this.#claims, key, { value: "", expiresAt: now + ttlMs }, now);
    return true;
  }

  /** See {@link Store.release}. */
  async release(key: string): Promise<void> {
    this.#claims.delete(key);
  }

  /** See {@link Store.get}. */
  async get(key: string): Promise<string | undefined> {
    return live(this.#values, key, this.#clock.now())?.value;
  }

  /** See {@link Store.set}. */
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const now = this.#clock.now();
    put(this.#values, key, { value, expiresAt: now + ttlMs }, now);
  }

  /** See {@link Store.delete}. */
  async delete(key: string): Promise<void> {
    this.#values.delete(key);
  }

  /** See {@link Store.swap}. */
  async swap(
    key: string,
    expected: string | undefined,
    value: string | undefined,
    ttlMs: number,
  ): Promise<string | undefined> {
    const now = this.#clock.now();
    const held = live(this.#values, key, now)?.value;
    if (held !== expected) return held;
    if (value === undefined) this.#values.delete(key);
    else put(this.#values, key, { value, expiresAt: now + ttlMs }, now);
    return held;
  }
}

/** A {@link MemoryStore}: state in this process's memory, the default of every package. */
export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  return new MemoryStore(options);
}
