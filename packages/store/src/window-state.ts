/**
 * The budget's window operation on plain data, for a backend that reads a key's whole state, decides,
 * and writes it back: atomically by a compare-and-set (Deno KV), or inside a single-threaded object
 * (a Durable Object), or in your own adapter. The same exact sliding-window rule as the memory store
 * (the same code, on logs rebuilt from the state), so no window ever admits more than its limit.
 */
import { sameShape, takeFromLogs } from "./decide.js";
import { SlidingWindowLog, type WindowLogSnapshot } from "./sliding-window.js";
import type { Decision, StoreWindow } from "./window.js";

/** A window as stored: its shape (a re-declared window starts afresh) and its log. */
export interface StoredWindow extends WindowLogSnapshot {
  limit: number;
  windowMs: number;
  holdMs: number;
}

/** One key's budget state as plain data (JSON): read and written whole, so one check covers every window. */
export interface WindowState {
  /** The latest time a decision on this key used: the key's clock never runs backwards. */
  at: number;
  /** When the key's pause after a 429 ends (0: not paused). */
  pausedUntil: number;
  /** Each window's admissions, by window id. */
  windows: Record<string, StoredWindow>;
}

/** A change to a key's budget state: the three operations of {@link StoreAdapter.take} and friends. */
export type WindowOp =
  | { op: "take"; windows: readonly StoreWindow[]; member: string; ticketed: boolean }
  | { op: "settle"; windows: readonly StoreWindow[]; ticket: string }
  | { op: "pause"; ms: number };

/** The state of a key nothing was decided on yet. */
export function emptyWindowState(): WindowState {
  // 0, not -Infinity: the state must survive JSON, and every clock a store uses reads above 0.
  return { at: 0, pausedUntil: 0, windows: {} };
}

/** Whether `value` (read back from a backend) is a {@link WindowState}; anything else counts as empty. */
export function isWindowState(value: unknown): value is WindowState {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as WindowState).at === "number" &&
    typeof (value as WindowState).pausedUntil === "number" &&
    typeof (value as WindowState).windows === "object" &&
    (value as WindowState).windows !== null
  );
}

/** The window's log as stored, or a fresh one when none is stored or the window was re-declared. */
function logOf(state: WindowState, window: StoreWindow): SlidingWindowLog {
  const stored = state.windows[window.id];
  const log = new SlidingWindowLog(window.limit, window.windowMs, window.holdMs ?? 0);
  if (stored === undefined || !sameShape(stored, window)) return log;
  // Recorded in the order they were taken, the admissions rebuild the log as it was (more than the
  // limit would throw: a state no store wrote).
  for (const at of stored.times) log.record(at);
  for (const { ticket, at } of stored.pending) log.record(at, ticket);
  return log;
}

function keep(state: WindowState, window: StoreWindow, log: SlidingWindowLog, at: number): void {
  state.windows[window.id] = {
    limit: log.limit,
    windowMs: log.windowMs,
    holdMs: log.holdMs,
    ...log.entries(at),
  };
}

/**
 * Applies `op` to `state` (changing it in place) at `now`, on the key's clock: never before a
 * decision already made on this key, so the logs stay in order and a process whose clock is behind
 * cannot reopen a window another one filled. Answers the decision (for `take`) and whether the state
 * changed: an unchanged state needs no write.
 */
export function applyWindowOp(
  state: WindowState,
  op: WindowOp,
  now: number,
): { decision: Decision | undefined; changed: boolean } {
  const at = Math.max(now, state.at);
  let decision: Decision | undefined;
  let changed = false;
  if (op.op === "take") {
    if (state.pausedUntil > at) {
      decision = { ok: false, waitMs: state.pausedUntil - at, full: [], paused: true };
    } else {
      const logs = op.windows.map((w) => logOf(state, w));
      decision = takeFromLogs(logs, op.windows, at, op.ticketed ? op.member : undefined);
      if (decision.ok) for (let i = 0; i < op.windows.length; i++) keep(state, op.windows[i]!, logs[i]!, at);
      changed = decision.ok;
    }
  } else if (op.op === "settle") {
    for (const w of op.windows) {
      if (state.windows[w.id] === undefined) continue;
      const log = logOf(state, w);
      if (log.settle(op.ticket, at)) {
        keep(state, w, log, at);
        changed = true;
      }
    }
  } else if (at + op.ms > state.pausedUntil) {
    state.pausedUntil = at + op.ms;
    changed = true;
  }
  if (changed) state.at = at;
  return { decision, changed };
}

/**
 * When the last admission (or the pause) of `state` stops counting, as epoch ms on the key's clock:
 * how long a backend should keep it. `undefined` when nothing counts any more (delete it).
 */
export function windowStateEnd(state: WindowState): number | undefined {
  let until: number | undefined = state.pausedUntil > state.at ? state.pausedUntil : undefined;
  for (const w of Object.values(state.windows)) {
    const last = Math.max(
      w.times.at(-1) ?? Number.NEGATIVE_INFINITY,
      (w.pending.at(-1)?.at ?? Number.NEGATIVE_INFINITY) + w.holdMs,
    );
    if (last === Number.NEGATIVE_INFINITY) continue;
    const end = last + w.windowMs;
    if (end > state.at) until = Math.max(until ?? end, end);
  }
  return until;
}
