/**
 * Every timer the simulator starts goes through one scheduler, so that `close()` can cancel them all
 * (webhook retries, evaluation completions, slow faults) and no test is left with a live handle.
 */

/** Tracks timers and cancellable sleeps. */
export class Scheduler {
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #sleepers = new Set<() => void>();

  /** Runs `fn` after `ms`, unless cleared first. */
  after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  /** Resolves after `ms`, or at once (to `false`) when the scheduler is cleared. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const wake = () => {
        this.#sleepers.delete(wake);
        resolve(false);
      };
      this.#sleepers.add(wake);
      this.after(ms, () => {
        this.#sleepers.delete(wake);
        resolve(true);
      });
    });
  }

  /** Cancels every pending timer and wakes every sleeper. */
  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const wake of [...this.#sleepers]) wake();
  }
}
