/**
 * An exact sliding-window log. A fixed window (reset every minute) lets up to twice the limit through
 * across its edge; a token bucket lets `limit` through at once and then refills, which also exceeds the
 * limit in some window. Keeping the admission times themselves makes the rule exact: an admission at
 * `t` is allowed only when fewer than `limit` admissions lie in `(t - windowMs, t]`, so no window of
 * `windowMs` ever holds more than `limit`, and the budget is fully usable when demand is there.
 *
 * Only the last `limit` admissions can matter, so the log is a ring buffer of at most `limit` times;
 * times that left the window are dropped from its head. Each decision is O(1) amortised.
 */
export class SlidingWindowLog {
  /** Admissions allowed in any window. */
  readonly limit: number;
  /** The window length in milliseconds. */
  readonly windowMs: number;
  // The buffer grows by doubling up to `limit`, so a generous limit (say 1e9 per second, "not
  // binding") costs memory only for the admissions actually inside the window.
  #times: Float64Array;
  #head = 0;
  #size = 0;

  /**
   * @param limit admissions allowed in any window (a positive integer).
   * @param windowMs the window length in milliseconds (positive).
   */
  constructor(limit: number, windowMs: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0) || !Number.isFinite(windowMs)) {
      throw new RangeError(`windowMs must be a positive finite number, got ${windowMs}`);
    }
    this.limit = limit;
    this.windowMs = windowMs;
    this.#times = new Float64Array(Math.min(limit, 16));
  }

  /** Drops the admissions that are no longer inside the window ending at `now`. */
  #expire(now: number): void {
    const edge = now - this.windowMs;
    const times = this.#times;
    const capacity = times.length;
    while (this.#size > 0 && times[this.#head]! <= edge) {
      this.#head = this.#head + 1 === capacity ? 0 : this.#head + 1;
      this.#size--;
    }
  }

  /**
   * Milliseconds until one more admission fits (0 when it fits now). Consumes nothing. Other
   * admissions can only make the real wait longer, so this is a lower bound to sleep on.
   */
  waitMs(now: number): number {
    this.#expire(now);
    if (this.#size < this.limit) return 0;
    // Full: the oldest admission in the window must leave it first.
    return this.#times[this.#head]! + this.windowMs - now;
  }

  /** Records an admission at `now`. Call only after `waitMs(now)` returned 0. */
  record(now: number): void {
    if (this.#size === this.#times.length) this.#grow();
    const capacity = this.#times.length;
    let tail = this.#head + this.#size;
    if (tail >= capacity) tail -= capacity;
    this.#times[tail] = now;
    this.#size++;
  }

  /** Admits at `now` when there is room; returns whether it did. */
  tryTake(now: number): boolean {
    if (this.waitMs(now) > 0) return false;
    this.record(now);
    return true;
  }

  /** Admissions currently inside the window ending at `now`. */
  count(now: number): number {
    this.#expire(now);
    return this.#size;
  }

  #grow(): void {
    const old = this.#times;
    if (old.length >= this.limit) throw new RangeError("record() called on a full window");
    const next = new Float64Array(Math.min(this.limit, old.length * 2));
    for (let i = 0; i < this.#size; i++) next[i] = old[(this.#head + i) % old.length]!;
    this.#times = next;
    this.#head = 0;
  }
}
