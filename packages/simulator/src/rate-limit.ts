/**
 * Sliding-window-log rate limiting. A fixed window would admit up to twice the limit across a window
 * edge; keeping the admission times means no window of `windowMs` ever holds more than the limit.
 */

/** The verdict for one request. */
export type Admission = { admitted: true } | { admitted: false; retryAfterMs: number };

/** One limit (e.g. 60 per minute) tracked per key. */
export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #log = new Map<string, number[]>();

  /** @param limit admissions allowed in any window; @param windowMs the window length. */
  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  #recent(key: string, now: number): number[] {
    const times = (this.#log.get(key) ?? []).filter((t) => t > now - this.#windowMs);
    this.#log.set(key, times);
    return times;
  }

  /** How long until `key` has room, 0 when it has room now. Consumes nothing. */
  waitMs(key: string, now: number): number {
    const times = this.#recent(key, now);
    if (times.length < this.#limit) return 0;
    // The oldest admission that must leave the window before one more fits.
    const blocking = times[times.length - this.#limit]!;
    return blocking + this.#windowMs - now;
  }

  /** Records an admission for `key` at `now`. */
  record(key: string, now: number): void {
    this.#recent(key, now).push(now);
  }

  /** Forgets every key. */
  clear(): void {
    this.#log.clear();
  }
}

/**
 * Admits a request only when every limiter has room, and then records it in all of them: a request
 * refused by one limit must not consume another's budget (a 429 consumes nothing).
 */
export function admit(limiters: SlidingWindowLimiter[], key: string, now: number): Admission {
  const wait = Math.max(0, ...limiters.map((l) => l.waitMs(key, now)));
  if (wait > 0) return { admitted: false, retryAfterMs: wait };
  for (const limiter of limiters) limiter.record(key, now);
  return { admitted: true };
}
