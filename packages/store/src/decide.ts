/**
 * The one decision every store makes once it holds a key's logs: take from every window or from none.
 * The memory store calls it on logs in memory, the Deno KV store on logs read from KV (and writes them
 * back only when it took); the Redis script does the same in Lua, next to the data.
 */

import type { SlidingWindowLog } from "./sliding-window.js";
import type { Decision, StoreWindow as WindowSpec } from "./window.js";

/**
 * Whether `log` (or a stored window) was made for `window`: a window re-declared with another limit or
 * length starts afresh rather than misjudging.
 */
export function sameShape(
  log: Pick<SlidingWindowLog, "limit" | "windowMs" | "holdMs">,
  window: WindowSpec,
): boolean {
  return (
    log.limit === window.limit && log.windowMs === window.windowMs && log.holdMs === (window.holdMs ?? 0)
  );
}

/**
 * Checks every log (one per window, in the order of `windows`) at `now`; when all have room, records
 * the admission in all of them (with `ticket`, settled later) and admits; else takes nothing and says
 * which windows are full and how long until all have room at the earliest.
 */
export function takeFromLogs(
  logs: readonly SlidingWindowLog[],
  windows: readonly WindowSpec[],
  now: number,
  ticket: string | undefined,
): Decision {
  let waitMs = 0;
  let full: string[] | undefined;
  for (let i = 0; i < logs.length; i++) {
    const wait = logs[i]!.waitMs(now);
    if (wait > 0) {
      full ??= [];
      full.push(windows[i]!.id);
      if (wait > waitMs) waitMs = wait;
    }
  }
  if (full !== undefined) return { ok: false, waitMs, full, paused: false };
  for (const log of logs) log.record(now, ticket);
  return { ok: true };
}
