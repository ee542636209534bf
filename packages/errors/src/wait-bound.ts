/**
 * The longest server-given wait (`Retry-After`, `retry_info`) the SDK honours by waiting: one hour.
 * A longer one (a daily quota, a date in year 9999, `1e308`) fails at once with the server's
 * `retryAfterMs` on the error, so the caller decides; the SDK never sleeps that long, and never
 * retries before the server's time.
 */
export const MAX_SERVER_WAIT_MS = 3_600_000;

/**
 * The longest delay a timer takes (2^31 - 1 ms, about 24.8 days). Node, browsers and Workers run
 * a longer one after 1 ms instead: a longer wait is made of several timers.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Whether a server-given wait is over {@link MAX_SERVER_WAIT_MS} (or not a number at all). */
export function isOverWaitBound(ms: number): boolean {
  return !(ms <= MAX_SERVER_WAIT_MS);
}
