import type { AcquireOptions, BudgetTicket, RateBudget } from "./budget.js";
import { type FetchLike, resendWhileThrottled } from "./fetch.js";

/**
 * What the hooks read of ky's normalised options. Typed structurally so that this package does not
 * depend on ky; ky 1.14's `NormalizedOptions` satisfies it.
 */
export interface KyHookOptions {
  /** ky's signal for the request (the caller's signal combined with ky's own). */
  signal?: AbortSignal | null;
  /** ky's `context` option; `context.rateBudget` may carry {@link KyBudgetContext}. */
  context?: Record<string, unknown>;
  /** The fetch ky uses; resends in `"retry"` mode go through it too. */
  fetch?: FetchLike;
}

/** Per-request budget options passed through ky's `context` option as `context.rateBudget`. */
export type KyBudgetContext = Omit<AcquireOptions, "signal">;

/** A ky `beforeRequest` hook. */
export type BudgetBeforeRequestHook = (request: Request, options: KyHookOptions) => Promise<void>;
/** A ky `afterResponse` hook. */
export type BudgetAfterResponseHook = (
  request: Request,
  options: KyHookOptions,
  response: Response,
) => Promise<Response | undefined>;

/** The hook set to merge into ky's `hooks` option. */
export interface BudgetKyHooks {
  beforeRequest: BudgetBeforeRequestHook[];
  afterResponse: BudgetAfterResponseHook[];
}

function acquireOptionsOf(request: Request, options: KyHookOptions): AcquireOptions {
  const context = options.context?.["rateBudget"] as KyBudgetContext | undefined;
  return { ...context, signal: options.signal ?? request.signal };
}

/**
 * ky hooks for a budget: before each attempt, wait for the budget with the request's signal (ky
 * calls `beforeRequest` on every attempt, so a retried request takes budget again, as the server
 * counts it); after each response, settle the admission (it counts from the response on, which
 * covers any latency) and learn from a 429. Put these hooks last in `beforeRequest`: ky skips
 * the hooks after one that returns a `Request`, and a replaced request gets new options, so its
 * admission would count from the decision (plus the margin) only. In `onThrottled: "retry"` mode the 429 is
 * answered by resending (ky's own `retry` can stay 0). ky's `timeout` starts after the hooks, so
 * time spent waiting for the budget does not count against it.
 */
export function kyHooks(budget: RateBudget): BudgetKyHooks {
  // ky hands both hooks of one attempt the same (frozen) options object, but not the same Request
  // (it clones it for retries), so the attempt's ticket is found by its options.
  const tickets = new WeakMap<object, BudgetTicket>();
  return {
    beforeRequest: [
      async (request, options) => {
        const ticket = await budget.acquireTicket(request, acquireOptionsOf(request, options));
        tickets.set(options, ticket);
      },
    ],
    afterResponse: [
      async (request, options, response) => {
        tickets.get(options)?.settle();
        tickets.delete(options);
        if (response.status !== 429) return undefined;
        // ky hands hooks a clone of the response, so its body may be read here.
        const pauseMs = await budget.learnFrom(response, request);
        if (pauseMs === undefined || budget.onThrottled !== "retry") return undefined;
        const fetchFn = options.fetch ?? ((r: Request) => fetch(r));
        return resendWhileThrottled(budget, request, fetchFn, acquireOptionsOf(request, options));
      },
    ],
  };
}
