import type { WindowLogSnapshot } from "@promo-review/store";
import type { MemoryStore } from "./memory-store.js";
import type { WindowSpec } from "./rules.js";

/** One key's budgets as plain data, as the Durable Object stores them. */
export interface KeySnapshot {
  /** When the key's pause ends, if it is paused. */
  pausedUntil?: number | undefined;
  /** Each window that holds admissions, with its shape. */
  windows: (Omit<WindowSpec, "rule"> & WindowLogSnapshot)[];
}

/** What `key`'s budgets in `store` hold at `now`: admissions inside their windows, and a pause in force. */
export function snapshotOf(store: MemoryStore, key: string, now: number): KeySnapshot {
  const { logs, pausedUntil } = store.stateOf(key);
  const windows: KeySnapshot["windows"] = [];
  for (const [id, log] of logs ?? []) {
    const held = log.entries(now);
    if (held.times.length + held.pending.length === 0) continue;
    windows.push({ id, limit: log.limit, windowMs: log.windowMs, holdMs: log.holdMs, ...held });
  }
  return pausedUntil !== undefined && pausedUntil > now ? { pausedUntil, windows } : { windows };
}

/**
 * Puts a {@link snapshotOf} back into `store` (empty for `key`), whose clock reads `clock.at`: each
 * admission is taken again at its own time, through the store's own rule, window by window. None is
 * refused: a window never held more than its limit.
 */
export function restoreInto(
  store: MemoryStore,
  clock: { at: number },
  key: string,
  snapshot: KeySnapshot,
): void {
  const now = clock.at;
  for (const { id, limit, windowMs, holdMs, times, pending } of snapshot.windows) {
    const window: WindowSpec[] = [{ id, rule: id, limit, windowMs, holdMs }];
    // Settled times first, in order, then the tickets in theirs: the log's own order.
    for (const at of times) {
      clock.at = at;
      store.take(key, window);
    }
    for (const p of pending) {
      clock.at = p.at;
      store.take(key, window, p.ticket);
    }
  }
  clock.at = now;
  if (snapshot.pausedUntil !== undefined) store.pause(key, snapshot.pausedUntil - now);
}

/** When the last admission (or the pause) of a snapshot stops counting; undefined when nothing counts. */
export function endOf(snapshot: KeySnapshot): number | undefined {
  let end = snapshot.pausedUntil;
  for (const w of snapshot.windows) {
    // Both lists are in time order (a spread of a generous limit's times could overflow the stack).
    const last = Math.max(
      w.times.at(-1) ?? Number.NEGATIVE_INFINITY,
      (w.pending.at(-1)?.at ?? Number.NEGATIVE_INFINITY) + (w.holdMs ?? 0),
    );
    end = Math.max(end ?? last + w.windowMs, last + w.windowMs);
  }
  return end;
}
