/** What {@link sendWhileAdmitted} needs of a rate budget (`createRateBudget`'s answer fits). */
export interface LoopBudget {
  acquire(
    request: { method: string; url: string },
    options: { deadline: number; ticket: true },
  ): Promise<{ settle(): void }>;
  learn(response: Response): Promise<unknown>;
}

/** The answers the loops saw. */
export interface LoopCounts {
  ok: number;
  tooMany: number;
  other: number;
}

/**
 * Sends `GET url` as fast as `budget` admits, from `concurrency` loops, until `deadline` (epoch ms):
 * each request's ticket is settled when its answer arrives, and a 429 is taught to the budget.
 */
export declare function sendWhileAdmitted(options: {
  budget: LoopBudget;
  url: string;
  headers: Record<string, string>;
  deadline: number;
  concurrency: number;
}): Promise<LoopCounts>;
