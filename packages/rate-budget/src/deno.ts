/**
 * The Deno KV store: one key's budgets shared by every isolate of a Deno Deploy project (or every deno
 * process on one KV). On a sub-path export, typed structurally: nothing here imports Deno's types or
 * needs Deno at run time, so the package still builds and loads on Node.
 * @packageDocumentation
 */
import { SlidingWindowLog, sameShape, takeFromLogs, type WindowLogSnapshot } from "@promo-review/store";
import type { WindowSpec } from "./rules.js";
import { type RemoteBudget, SharedStore, type SharedStoreOptions } from "./shared-store.js";
import type { BudgetStore, Decision } from "./store.js";

export type { SharedStoreOptions } from "./shared-store.js";

/** A part of a Deno KV key (`Deno.KvKeyPart`). */
export type DenoKvKeyPart = string | number | bigint | boolean | symbol | Uint8Array;

/** A Deno KV key (`Deno.KvKey`). */
export type DenoKvKey = readonly DenoKvKeyPart[];

/** The part of `Deno.AtomicOperation` the store uses. */
export interface DenoKvAtomicLike {
  check(...checks: { key: DenoKvKey; versionstamp: string | null }[]): DenoKvAtomicLike;
  set(key: DenoKvKey, value: unknown, options?: { expireIn?: number }): DenoKvAtomicLike;
  commit(): Promise<{ ok: true; versionstamp: string } | { ok: false }>;
}

/** The part of a `Deno.Kv` the store uses; the object `await Deno.openKv()` returns fits. */
export interface DenoKvLike {
  get<T = unknown>(key: DenoKvKey): Promise<{ value: T | null; versionstamp: string | null }>;
  atomic(): DenoKvAtomicLike;
}

/** Options of {@link denoKvBudgetStore}; `timeoutMs` and the rest are {@link SharedStoreOptions}. */
export interface DenoKvBudgetStoreOptions extends SharedStoreOptions {
  /** Prefix of every key the store writes. Default `["promo-review", "rate-budget"]`. */
  prefix?: DenoKvKey | undefined;
  /**
   * How many times one decision is tried when another isolate changed the key between its read and its
   * write (default 32); past it the store counts as unavailable for that call. Each conflict means
   * another decision was made, so a decision that keeps losing is one among very many at once.
   */
  maxAttempts?: number | undefined;
  /**
   * The clock every isolate judges windows on, in milliseconds (default `Date.now`, the wall clock:
   * KV has no clock of its own, unlike Redis's `TIME`). See the README on clocks that disagree.
   */
  now?: (() => number) | undefined;
}

/** A window as stored: its shape (a re-declared window starts afresh) and its log. */
interface StoredWindow extends WindowLogSnapshot {
  limit: number;
  windowMs: number;
  holdMs: number;
}

/** One budget key's state: one KV value, read and written whole, so one check covers every window. */
interface KeyState {
  /** The latest time a decision on this key used: the key's clock never runs backwards. */
  at: number;
  pausedUntil: number;
  windows: Record<string, StoredWindow>;
}

/**
 * The most admissions a key's windows may hold together: the state is one KV value, and KV refuses
 * values over 64 KiB (a ticket and its time take about 60 bytes).
 */
export const DENO_KV_MAX_ADMISSIONS = 1000;

function isKeyState(value: unknown): value is KeyState {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as KeyState).at === "number" &&
    typeof (value as KeyState).pausedUntil === "number" &&
    typeof (value as KeyState).windows === "object"
  );
}

/** The window's log as stored, or a fresh one when none is stored or the window was re-declared. */
function logOf(state: KeyState, window: WindowSpec): SlidingWindowLog {
  const stored = state.windows[window.id];
  const log = new SlidingWindowLog(window.limit, window.windowMs, window.holdMs ?? 0);
  if (stored === undefined || !sameShape(stored, window)) return log;
  // Recorded in the order they were taken, the admissions rebuild the log as it was (more than the
  // limit would throw: a state this store did not write).
  for (const at of stored.times) log.record(at);
  for (const { ticket, at } of stored.pending) log.record(at, ticket);
  return log;
}

function store(state: KeyState, window: WindowSpec, log: SlidingWindowLog, at: number): void {
  state.windows[window.id] = {
    limit: log.limit,
    windowMs: log.windowMs,
    holdMs: log.holdMs,
    ...log.entries(at),
  };
}

/** How long KV should keep a key's state: until its last admission and its pause no longer count. */
function expireInOf(state: KeyState): number {
  let until = state.pausedUntil;
  for (const w of Object.values(state.windows)) {
    const last = Math.max(w.times.at(-1) ?? 0, (w.pending.at(-1)?.at ?? 0) + w.holdMs);
    until = Math.max(until, last + w.windowMs);
  }
  return Math.max(1, Math.ceil(until - state.at) + 1);
}

const pauseBriefly = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.random() * Math.min(20, 2 ** attempt)));

/**
 * Budgets in Deno KV, with the exact sliding-window rule of the memory store (the same code, on logs
 * read from KV): a decision reads the key's state and its versionstamp, decides, and commits only if
 * the state is unchanged (`check`), else reads again (up to `maxAttempts`). So no window ever admits
 * more than its limit, whichever isolates decide. A pause after a 429 is stored in the same state, so
 * every isolate sharing the key pauses; settled tickets count from their settling time. Each call has a
 * deadline, `timeoutMs`; past it (or on errors) the store fails closed unless `whenUnavailable: "open"`.
 */
export function denoKvBudgetStore(kv: DenoKvLike, options: DenoKvBudgetStoreOptions = {}): BudgetStore {
  const prefix = options.prefix ?? ["promo-review", "rate-budget"];
  const now = options.now ?? Date.now;
  const maxAttempts = options.maxAttempts ?? 32;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  }

  /**
   * Reads the key's state and lets `change` decide on it at the key's clock. `change` answers its
   * result and whether it changed the state; a changed state is committed with a check of the
   * versionstamp read, and on a conflict everything runs again on a fresh read.
   */
  async function update<T>(
    key: string,
    change: (state: KeyState, at: number) => { result: T; changed: boolean },
    signal: AbortSignal,
  ): Promise<T> {
    const kvKey = [...prefix, key];
    for (let attempt = 0; attempt < maxAttempts && !signal.aborted; attempt++) {
      const entry = await kv.get<unknown>(kvKey);
      const state: KeyState = isKeyState(entry.value)
        ? entry.value
        : { at: Number.NEGATIVE_INFINITY, pausedUntil: 0, windows: {} };
      // Never before a decision already made on this key: the logs stay in order, and an isolate
      // whose clock is behind cannot reopen a window another one filled.
      const at = Math.max(now(), state.at);
      const { result, changed } = change(state, at);
      if (!changed) return result;
      state.at = at;
      let committed: { ok: boolean };
      try {
        committed = await kv
          .atomic()
          .check({ key: kvKey, versionstamp: entry.versionstamp })
          .set(kvKey, state, { expireIn: expireInOf(state) })
          .commit();
      } catch {
        // A local KV file shared by processes answers "database is locked" at times; a commit that
        // threw yet landed changed the versionstamp, so the next attempt decides on it afresh.
        committed = { ok: false };
      }
      if (committed.ok) return result;
      await pauseBriefly(attempt);
    }
    throw new Error(
      signal.aborted
        ? "Deno KV: out of time"
        : `Deno KV: ${maxAttempts} attempts in a row met a concurrent change of the key`,
    );
  }

  const remote: RemoteBudget = {
    where: "Deno KV",
    take: (key, windows, member, ticketed, signal) =>
      update<Decision>(
        key,
        (state, at) => {
          if (state.pausedUntil > at) {
            return {
              result: { ok: false, waitMs: state.pausedUntil - at, full: [], paused: true },
              changed: false,
            };
          }
          const logs = windows.map((w) => logOf(state, w));
          const result = takeFromLogs(logs, windows, at, ticketed ? member : undefined);
          if (result.ok) for (let i = 0; i < windows.length; i++) store(state, windows[i]!, logs[i]!, at);
          return { result, changed: result.ok };
        },
        signal,
      ),
    settle: (key, windows, ticket, signal) =>
      update(
        key,
        (state, at) => {
          let changed = false;
          for (const w of windows) {
            if (state.windows[w.id] === undefined) continue;
            const log = logOf(state, w);
            if (log.settle(ticket, at)) {
              store(state, w, log, at);
              changed = true;
            }
          }
          return { result: undefined, changed };
        },
        signal,
      ),
    pause: (key, ms, signal) =>
      update(
        key,
        (state, at) => {
          const until = at + ms;
          if (until <= state.pausedUntil) return { result: undefined, changed: false };
          state.pausedUntil = until;
          return { result: undefined, changed: true };
        },
        signal,
      ),
  };
  const shared = new SharedStore(remote, options);
  return {
    async take(key, windows, ticket) {
      let total = 0;
      for (const w of windows) total += w.limit;
      // A shape this store cannot hold is the caller's mistake, not an unreachable store: rejected as is.
      if (total > DENO_KV_MAX_ADMISSIONS) {
        throw new RangeError(
          `a Deno KV budget key holds at most ${DENO_KV_MAX_ADMISSIONS} admissions (one KV value of 64 KiB); these windows allow ${total}`,
        );
      }
      return shared.take(key, windows, ticket);
    },
    settle: (key, windows, ticket) => shared.settle(key, windows, ticket),
    pause: (key, ms) => shared.pause(key, ms),
  };
}
