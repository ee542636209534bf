import type { AcquireOptions, RateBudget } from "./budget.js";

/** A `fetch`-shaped function. */
export type FetchLike = (input: Request) => Promise<Response>;

/**
 * After a 429 was learned (the budget is paused), waits for the pause and the budget and sends
 * `request` again, up to `budget.maxThrottleRetries` times; each resend takes budget, since the
 * server counts it. Returns the first answer that is not a 429, else the last 429.
 * A 429 means "not processed", so resending even a POST cannot duplicate work.
 */
export async function resendWhileThrottled(
  budget: RateBudget,
  request: Request,
  fetchFn: FetchLike,
  options: AcquireOptions,
): Promise<Response | undefined> {
  let last: Response | undefined;
  for (let attempt = 0; attempt < budget.maxThrottleRetries; attempt++) {
    const ticket = await budget.acquireTicket(request, options);
    try {
      last = await fetchFn(request.clone());
    } finally {
      ticket.settle();
    }
    if (last.status !== 429) return last;
    await budget.learn(last, request);
  }
  return last;
}

/**
 * Wraps `fetch` for callers without ky: every request waits for the budget (with the request's
 * `signal`) and its admission is settled when the answer arrives, every 429 pauses the budget, and in `onThrottled: "retry"` mode a throttled request is resent
 * for the caller. Requests outside every budget go straight to `fetchFn`.
 */
export function budgetedFetch(
  budget: RateBudget,
  fetchFn: FetchLike = (request) => fetch(request),
  options: Omit<AcquireOptions, "signal"> = {},
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const request = new Request(input, init);
    const acquireOptions: AcquireOptions = { ...options, signal: request.signal };
    const ticket = await budget.acquireTicket(request, acquireOptions);
    // Keep a pristine copy for a resend: the body of the sent request is consumed.
    const spare = budget.onThrottled === "retry" ? request.clone() : undefined;
    let response: Response;
    try {
      response = await fetchFn(request);
    } finally {
      // Answered or failed, the request reached the server (if at all) before now.
      ticket.settle();
    }
    if (response.status !== 429) return response;
    const pauseMs = await budget.learn(response, request);
    if (spare === undefined || pauseMs === undefined) return response;
    return (await resendWhileThrottled(budget, spare, fetchFn, acquireOptions)) ?? response;
  };
}
