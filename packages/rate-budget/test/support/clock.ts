/**
 * A manual clock for tests: time moves only when the test says, timers fire in order, and the
 * promise reactions of each timer run before the next timer fires (so admission times are exact).
 */
import type { Clock } from "../../src/clock.js";

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets queued promise reactions run (a macrotask turn drains the microtask queue). */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A {@link Clock} driven by hand. */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers = new Set<Timer>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { at: this.#now + ms, seq: this.#seq++, fn };
    this.#timers.add(timer);
    return timer;
  }

  clearTimer(handle: unknown): void {
    this.#timers.delete(handle as Timer);
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  #next(): Timer | undefined {
    let next: Timer | undefined;
    for (const t of this.#timers)
      if (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
    return next;
  }

  /** Moves time to `at`, firing every timer due on the way, each followed by a flush. */
  async advanceTo(at: number): Promise<void> {
    await flush();
    for (let next = this.#next(); next && next.at <= at; next = this.#next()) {
      this.#timers.delete(next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await flush();
    }
    this.#now = Math.max(this.#now, at);
    await flush();
  }

  /** Moves time by `ms`. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.#now + ms);
  }

  /** Fires timers until none is left (at most `limit` of them, against runaway loops). */
  async runAll(limit = 100_000): Promise<void> {
    await flush();
    for (let i = 0, next = this.#next(); next && i < limit; i++, next = this.#next()) {
      await this.advanceTo(next.at);
    }
  }
}
