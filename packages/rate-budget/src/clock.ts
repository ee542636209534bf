/**
 * Time as the budget sees it. Injectable so that tests drive it by hand; the default reads the
 * monotonic `performance.now()` (a wall clock can jump backwards and reopen a window).
 */
export interface Clock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Calls `fn` after `ms`; returns a handle for `clearTimer`. */
  setTimer(fn: () => void, ms: number): unknown;
  /** Cancels a timer from `setTimer`. */
  clearTimer(handle: unknown): void;
}

/** The real clock. Globals are read when called, never at import, so the module stays edge-safe. */
export function systemClock(): Clock {
  return {
    now: () => performance.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  };
}
