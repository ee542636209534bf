import { MAX_TIMER_MS } from "@promo-review/errors/internal";

/**
 * Calls `fn` once `ms` have passed and returns a function that cancels it. Unlike a bare
 * `setTimeout`, a delay over 2^31 - 1 ms is kept (made of several timers) instead of firing after
 * 1 ms with a `TimeoutOverflowWarning`; an infinite delay sets no timer at all, and a negative or
 * NaN one fires at once.
 */
export function setLongTimeout(fn: () => void, ms: number): () => void {
  if (ms === Number.POSITIVE_INFINITY) return () => {};
  // NaN and negative delays fire at once, as setTimeout treats them.
  let left = Number.isNaN(ms) || ms < 0 ? 0 : ms;
  let timer: ReturnType<typeof setTimeout>;
  const arm = () => {
    const step = Math.min(left, MAX_TIMER_MS);
    left -= step;
    timer = setTimeout(left > 0 ? arm : fn, step);
  };
  arm();
  return () => clearTimeout(timer);
}
