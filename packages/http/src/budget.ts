/**
 * What the pipeline needs of a rate budget, declared here so that `http` depends on no budget
 * implementation: `RateBudget` from `@promo-review/rate-budget` satisfies it as it is.
 * @packageDocumentation
 */
import type { ObservedOperation } from "@promo-review/errors/observe";

/** A request as a budget sees it: its method and absolute URL. */
export interface BudgetedRequest {
  method: string;
  url: string;
}

/** One admission by the budget, settled once the answer (or the failure) came back. */
export interface BudgetAdmission {
  /** Counts the admission from now on: the server counted the request on arrival, before this. */
  settle(): void;
  /**
   * Why the request waited before it was admitted, when it did: `window` (the rule's window was
   * full) or `paused` (a 429's `Retry-After` paused the key). The pipeline puts it on the span.
   */
  waited?: { ms: number; reason: "window" | "paused" } | undefined;
}

/**
 * A rate budget the pipeline waits for before each attempt (and each redirect hop: the service counts
 * every request it receives) and tells about each throttled answer.
 */
export interface RequestBudget {
  /**
   * Resolves when the request may go, with an admission to settle when its answer arrived; rejects
   * (with a typed error) when `signal` fires or the budget refuses to wait. The attempt's deadline
   * starts only after this, so waiting in the budget's queue never counts as the service being slow.
   */
  acquire(
    request: BudgetedRequest,
    options: {
      signal: AbortSignal;
      ticket: true;
      /**
       * The operation waiting (its handle from the client's `telemetry`), under which a budget that
       * reports its waits reports this one.
       */
      operation?: ObservedOperation | undefined;
    },
  ): Promise<BudgetAdmission>;
  /** Learns from a 429 answer (its `Retry-After` or `retry_info` pauses the budget); other answers are ignored. */
  learn(response: Response, request: BudgetedRequest): Promise<unknown>;
}
