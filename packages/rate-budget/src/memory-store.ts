import { SlidingWindowLog, sameShape, takeFromLogs } from "@promo-review/store";
import { type Clock, systemClock } from "./clock.js";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";

/** The windows of one key: one log per window id, shared by every set of windows that names it. */
interface KeyState {
  byId: Map<string, SlidingWindowLog>;
  bySet: WeakMap<readonly WindowSpec[], SlidingWindowLog[]>;
}

function current(logs: SlidingWindowLog[], windows: readonly WindowSpec[]): boolean {
  for (let i = 0; i < logs.length; i++) if (!sameShape(logs[i]!, windows[i]!)) return false;
  return true;
}

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The time source; share it with the budget when testing with a manual clock. */
  clock?: Pick<Clock, "now">;
}

/**
 * Budgets in this process's memory: the default. Synchronous and allocation-free per decision, so
 * an admission with room costs no promise. No timer, no global state: an idle store is plain data.
 * Memory is bounded by the limits: at most `limit` times per window per key.
 */
export class MemoryStore implements BudgetStore {
  /** Always: see {@link BudgetStore.synchronous}. */
  readonly synchronous = true;
  readonly #clock: Pick<Clock, "now">;
  readonly #keys = new Map<string, KeyState>();
  readonly #pausedUntil = new Map<string, number>();
  #lastKey: string | undefined;
  #lastWindows: readonly WindowSpec[] | undefined;
  #lastLogs: SlidingWindowLog[] | undefined;

  /** @param options see {@link MemoryStoreOptions}. */
  constructor(options: MemoryStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock();
  }

  #logsOf(key: string, windows: readonly WindowSpec[]): SlidingWindowLog[] {
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

  /** See {@link BudgetStore.take}: checks every window, then records in all of them. */
  take(key: string, windows: readonly WindowSpec[], ticket?: string): Decision {
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

  /** See {@link BudgetStore.settle}. */
  settle(key: string, windows: readonly WindowSpec[], ticket: string): void {
    const now = this.#clock.now();
    for (const log of this.#logsOf(key, windows)) log.settle(ticket, now);
  }

  /**
   * `key`'s logs by window id, and when its pause ends: what a store that keeps budgets across
   * restarts (the Durable Object) saves. Undefined logs before the key's first decision.
   */
  stateOf(key: string): {
    logs: ReadonlyMap<string, SlidingWindowLog> | undefined;
    pausedUntil: number | undefined;
  } {
    return { logs: this.#keys.get(key)?.byId, pausedUntil: this.#pausedUntil.get(key) };
  }

  /** See {@link BudgetStore.pause}. */
  pause(key: string, ms: number): void {
    const until = this.#clock.now() + ms;
    if (until > (this.#pausedUntil.get(key) ?? Number.NEGATIVE_INFINITY)) this.#pausedUntil.set(key, until);
  }
}
