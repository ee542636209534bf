/**
 * A batch's progress: items finished of the total, the ETA from the pace so far, and the time spent
 * waiting on each budget (so a slow batch says whether the 60/min or the 10/min limit holds it).
 */
import type { BatchOutcome } from "./outcome.js";

/** Where a batch stands. */
export interface BatchProgress {
  done: number;
  failed: number;
  ambiguous: number;
  /** The items in the batch, when told. */
  total?: number | undefined;
  /** Milliseconds since the run started. */
  elapsedMs: number;
  /** The time left at the pace so far, once an item is done and the total is known. */
  etaMs?: number | undefined;
  /** Milliseconds requests waited on each budget, by its name. */
  waitedMs: Record<string, number>;
}

/** Keeps a batch's progress. */
export class BatchProgressMeter {
  readonly #total: number | undefined;
  readonly #started = Date.now();
  #done = 0;
  #failed = 0;
  #ambiguous = 0;
  readonly #waited: Record<string, number> = {};

  constructor(total?: number) {
    this.#total = total;
  }

  /** Counts an item's outcome. */
  finished(outcome: BatchOutcome): void {
    this.#done += 1;
    if (outcome.status === "failed") this.#failed += 1;
    if (outcome.status === "ambiguous") this.#ambiguous += 1;
  }

  /** Counts a wait the budget announced (a lower bound of it). */
  waited(budgets: readonly string[], waitMs: number): void {
    for (const name of budgets) this.#waited[name] = (this.#waited[name] ?? 0) + waitMs;
  }

  progress(): BatchProgress {
    const elapsedMs = Date.now() - this.#started;
    const left = this.#total === undefined ? undefined : Math.max(0, this.#total - this.#done);
    return {
      done: this.#done,
      failed: this.#failed,
      ambiguous: this.#ambiguous,
      total: this.#total,
      elapsedMs,
      etaMs: left === undefined || this.#done === 0 ? undefined : Math.round((elapsedMs / this.#done) * left),
      waitedMs: { ...this.#waited },
    };
  }
}
