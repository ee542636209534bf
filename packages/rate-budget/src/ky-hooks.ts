import { resendWhileThrottled } from "./resend.js";
import type {
  AcquireOptions,
  Admission,
  BudgetKyHooks,
  BudgetTicket,
  KyBudgetContext,
  KyHookOptions,
} from "./types.js";

function acquireOptionsOf(request: Request, options: KyHookOptions): AcquireOptions {
  const context = options.context?.["rateBudget"] as KyBudgetContext | undefined;
  return { ...context, signal: options.signal ?? request.signal };
}

/**
 * ky hooks for a budget (`budget.kyHooks()`): before each attempt, wait for the budget with the
 * request's signal (ky calls `beforeRequest` on every attempt, so a retried request takes budget
 * again, as the server counts it); after each response, settle the admission (it counts from the
 * response on, which covers any latency) and learn from a 429. Put these hooks last in
 * `beforeRequest`: ky skips the hooks after one that returns a `Request`, and a replaced request
 * gets new options, so its admission would count from the decision (plus the margin) only. In
 * `onThrottled: "retry"` mode the 429 is answered by resending (ky's own `retry` can stay 0). ky's
 * `timeout` starts after the hooks, so time spent waiting for the budget does not count against it.
 */
export function kyHooksFor(admission: Admission): BudgetKyHooks {
  // ky hands both hooks of one attempt the same (frozen) options object, but not the same Request
  // (it clones it for retries), so the attempt's ticket is found by its options.
  const tickets = new WeakMap<object, BudgetTicket>();
  return {
    beforeRequest: [
      async (request, options) => {
        const ticket = await admission.admit(request, acquireOptionsOf(request, options));
        tickets.set(options, ticket);
      },
    ],
    afterResponse: [
      async (request, options, response) => {
        tickets.get(options)?.settle();
        tickets.delete(options);
        if (response.status !== 429) return undefined;
        // ky hands hooks a clone of the response, so its body may be read here.
        const pauseMs = await admission.learnFrom(response, request);
        if (pauseMs === undefined || !admission.resend) return undefined;
        const fetchFn = options.fetch ?? ((r: Request) => fetch(r));
        return resendWhileThrottled(admission, request, fetchFn, acquireOptionsOf(request, options), pauseMs);
      },
    ],
  };
}
