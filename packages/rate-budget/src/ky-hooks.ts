import { admissionOf, type RateBudget } from "./budget.js";
import { resendWhileThrottled } from "./resend.js";
import type {
  AcquireOptions,
  Admission,
  BudgetKyHooks,
  BudgetTicket,
  KyBudgetContext,
  KyHookOptions,
  KyHookState,
} from "./types.js";

function acquireOptionsOf(request: Request, options: KyHookOptions): AcquireOptions {
  const context = options.context?.["rateBudget"] as KyBudgetContext | undefined;
  return { ...context, signal: options.signal ?? request.signal };
}

/**
 * ky 2 calls each hook with one state object, ky 1 with `(request, options[, response])`. A state
 * has `request` and `options`; a `Request` has neither.
 */
function isState(first: Request | KyHookState): first is KyHookState {
  return "request" in first && "options" in first;
}

/**
 * A ky hook set (ky 1 or ky 2) for `budget`, to merge into ky's `hooks` option (put it last in
 * `beforeRequest`, first in `beforeRetry`). A function of its own rather than a method of the budget,
 * like `budgetedFetch`, so that a bundle that never calls ky (the facade's) carries none of it.
 *
 * For ky 1 and ky 2: before each attempt, wait for the
 * budget with the request's signal, so a retried request takes budget again, as the server counts it
 * (ky 1 calls `beforeRequest` on every attempt; ky 2 calls it once per call and `beforeRetry` before
 * each retry, so there the retry hook takes it); after each response, settle the admission (it counts
 * from the response on, which covers any latency) and learn from a 429. In `onThrottled: "retry"`
 * mode the 429 is answered by resending (ky's own `retry` can stay 0). ky's `timeout` starts after
 * the hooks, so time spent waiting for the budget does not count against it.
 */
export function kyHooks(budget: RateBudget): BudgetKyHooks {
  return kyHooksFor(admissionOf(budget));
}

function kyHooksFor(admission: Admission): BudgetKyHooks {
  // The attempt's ticket, found again by the hook that settles it. ky 1 hands both hooks of one
  // attempt the same frozen options object (but not the same Request: it clones it for retries).
  // ky 2 makes a new options object when a hook replaces the request, but keeps one `context`
  // object per call (a copy of the one given), so its tickets are keyed by that.
  const tickets = new WeakMap<object, BudgetTicket>();
  // ky 2's calls (their `context`): only these take budget in `beforeRetry` (ky 1 runs
  // `beforeRequest` again before a retry, which takes it already).
  const ky2Calls = new WeakSet<object>();
  // In "retry" mode, a copy of each ky 2 attempt's request with a body, taken before ky sends it:
  // ky 2 keeps an unsent copy only when its own `retry` is on, and hands `afterResponse` the request
  // it sent otherwise, whose body is spent, so a 429 could not be resent. (ky 1 keeps one always.)
  const unsent = new WeakMap<object, Request>();
  const keyOf = (options: KyHookOptions, ky2: boolean): object =>
    ky2 && options.context ? options.context : options;

  const admit = async (request: Request, options: KyHookOptions, ky2: boolean) => {
    const ticket = await admission.admit(request, acquireOptionsOf(request, options));
    const key = keyOf(options, ky2);
    tickets.set(key, ticket);
    if (ky2 && admission.resend && request.body !== null) unsent.set(key, request.clone());
  };

  const answered = async (sent: Request, options: KyHookOptions, response: Response, ky2: boolean) => {
    const key = keyOf(options, ky2);
    tickets.get(key)?.settle();
    tickets.delete(key);
    const request = sent.bodyUsed ? (unsent.get(key) ?? sent) : sent;
    unsent.delete(key);
    if (response.status !== 429) return undefined;
    // ky hands hooks a clone of the response, so its body may be read here.
    const pauseMs = await admission.learnFrom(response, request);
    if (pauseMs === undefined || !admission.resend) return undefined;
    const fetchFn = options.fetch ?? ((r: Request) => fetch(r));
    return resendWhileThrottled(admission, request, fetchFn, acquireOptionsOf(request, options), pauseMs);
  };

  return {
    beforeRequest: [
      async (first, options) => {
        if (!isState(first)) return admit(first, options ?? {}, false);
        if (first.options.context) ky2Calls.add(first.options.context);
        return admit(first.request, first.options, true);
      },
    ],
    beforeRetry: [
      async ({ request, options }) => {
        if (options.context && ky2Calls.has(options.context)) await admit(request, options, true);
      },
    ],
    afterResponse: [
      async (first, options, response) => {
        if (!isState(first)) return answered(first, options ?? {}, response!, false);
        return answered(first.request, first.options, first.response!, true);
      },
    ],
  };
}
