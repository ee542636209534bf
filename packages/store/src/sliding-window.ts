/** A log's admissions as plain data: settled times in order, and the unsettled tickets. */
export interface WindowLogSnapshot {
  times: number[];
  pending: { ticket: string; at: number }[];
}

/**
 * An exact sliding-window log. A fixed window (reset every minute) lets up to twice the limit through
 * across its edge; a token bucket lets `limit` through at once and then refills, which also exceeds the
 * limit in some window. Keeping the admission times themselves makes the rule exact: an admission at
 * `t` is allowed only when fewer than `limit` admissions lie in `(t - windowMs, t]`, so no window of
 * `windowMs` ever holds more than `limit`, and the budget is fully usable when demand is there.
 *
 * Only the last `limit` admissions can matter, so the log is a ring buffer of at most `limit` times;
 * times that left the window are dropped from its head. Each decision is O(1) amortised.
 *
 * An admission may be taken with a ticket and settled later (when its response arrived): it then
 * counts from the settling time. The server counts a request when it arrives, somewhere between our
 * decision and the response, so counting from the response is safe whatever the latency was. Until
 * settled, a ticket counts as if it arrived `holdMs` after the decision (the longest latency
 * assumed), so a slow request keeps its slot rather than letting it go before the server counted it.
 * Settled times are pushed in settling order, so the ring stays sorted; unsettled tickets wait in a
 * FIFO of their decision times.
 */
export class SlidingWindowLog {
  /** Admissions allowed in any window. */
  readonly limit: number;
  /** The window length in milliseconds. */
  readonly windowMs: number;
  /** How long after its decision an unsettled ticket is assumed to arrive at the latest. */
  readonly holdMs: number;
  // The buffer grows by doubling up to `limit`, so a generous limit (say 1e9 per second, "not
  // binding") costs memory only for the admissions actually inside the window.
  #times: Float64Array;
  #head = 0;
  #size = 0;
  // Tickets not yet settled, in decision order (at most `limit`, usually a handful in flight).
  #pending: { ticket: string; at: number }[] = [];

  /**
   * @param limit admissions allowed in any window (a positive integer).
   * @param windowMs the window length in milliseconds (positive).
   * @param holdMs how long after its decision an unsettled ticket counts from (default 0).
   */
  constructor(limit: number, windowMs: number, holdMs = 0) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`limit must be a positive integer, got ${limit}`);
    if (!(windowMs > 0) || !Number.isFinite(windowMs)) {
      throw new RangeError(`windowMs must be a positive finite number, got ${windowMs}`);
    }
    this.limit = limit;
    this.windowMs = windowMs;
    this.holdMs = holdMs;
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
    const pending = this.#pending;
    const pendingEdge = edge - this.holdMs;
    if (pending.length > 0 && pending[0]!.at <= pendingEdge) {
      let drop = 1;
      while (drop < pending.length && pending[drop]!.at <= pendingEdge) drop++;
      pending.splice(0, drop);
    }
  }

  /**
   * Milliseconds until one more admission fits (0 when it fits now). Consumes nothing. Other
   * admissions can only make the real wait longer, so this is a lower bound to sleep on.
   */
  waitMs(now: number): number {
    this.#expire(now);
    if (this.#size + this.#pending.length < this.limit) return 0;
    // Full: the oldest admission in the window must leave it first. An unsettled ticket may be
    // settled any moment, which moves it to now: it leaves a window from now at the earliest, so
    // the wait is never reported longer than a window.
    let oldest = this.#size > 0 ? this.#times[this.#head]! : Number.POSITIVE_INFINITY;
    if (this.#pending.length > 0) oldest = Math.min(oldest, this.#pending[0]!.at + this.holdMs);
    return Math.min(oldest + this.windowMs - now, this.windowMs);
  }

  /**
   * Records an admission at `now`; with a `ticket`, {@link settle} may later move it to the time its
   * response arrived. Call only after `waitMs(now)` returned 0.
   */
  record(now: number, ticket?: string): void {
    if (this.#size + this.#pending.length >= this.limit)
      throw new RangeError("record() called on a full window");
    if (ticket === undefined) this.#push(now);
    else this.#pending.push({ ticket, at: now });
  }

  /**
   * Counts the admission of `ticket` from `now` instead of its decision time. Returns false when the
   * ticket is unknown: settled already, or expired (it then counted from its decision time).
   */
  settle(ticket: string, now: number): boolean {
    const index = this.#pending.findIndex((p) => p.ticket === ticket);
    if (index === -1) return false;
    this.#pending.splice(index, 1);
    this.#push(now);
    return true;
  }

  /** Admits at `now` when there is room; returns whether it did. */
  tryTake(now: number, ticket?: string): boolean {
    if (this.waitMs(now) > 0) return false;
    this.record(now, ticket);
    return true;
  }

  /** Admissions currently inside the window ending at `now` (settled or not). */
  count(now: number): number {
    this.#expire(now);
    return this.#size + this.#pending.length;
  }

  /**
   * The admissions inside the window ending at `now`, as plain data, for a store that keeps budgets
   * across restarts (the Durable Object). A fresh log given each of them with {@link record}, in
   * order (the settled times first), is this log again.
   */
  entries(now: number): WindowLogSnapshot {
    this.#expire(now);
    const times: number[] = [];
    for (let i = 0; i < this.#size; i++) times.push(this.#times[(this.#head + i) % this.#times.length]!);
    return { times, pending: this.#pending.map((p) => ({ ...p })) };
  }

  #push(now: number): void {
    if (this.#size === this.#times.length) this.#grow();
    const capacity = this.#times.length;
    let tail = this.#head + this.#size;
    if (tail >= capacity) tail -= capacity;
    this.#times[tail] = now;
    this.#size++;
  }

  #grow(): void {
    const old = this.#times;
    const next = new Float64Array(Math.min(this.limit, old.length * 2));
    for (let i = 0; i < this.#size; i++) next[i] = old[(this.#head + i) % old.length]!;
    this.#times = next;
    this.#head = 0;
  }
}
