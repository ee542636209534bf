import { admissionOf, type RateBudget } from "./budget.js";
import { resendWhileThrottled } from "./resend.js";
import type { AcquireOptions, FetchLike } from "./types.js";

/**
 * Wraps `fetch` for callers without ky: every request waits for the budget (with the request's
 * `signal`) and its admission is settled when the answer arrives, every 429 pauses the budget, and
 * in `onThrottled: "retry"` mode a throttled request is resent for the caller. Requests outside
 * every budget go straight to `fetchFn`.
 */
export function budgetedFetch(
  budget: RateBudget,
  fetchFn: FetchLike = (request) => fetch(request),
  options: Omit<AcquireOptions, "signal"> = {},
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  const admission = admissionOf(budget);
  return async (input, init) => {
    const request = new Request(input, init);
    const acquireOptions: AcquireOptions = { ...options, signal: request.signal };
    const ticket = await admission.admit(request, acquireOptions);
    // Keep a pristine copy for a resend: the body of the sent request is consumed.
    const spare = admission.resend ? request.clone() : undefined;
    let response: Response;
    try {
      response = await fetchFn(request);
    } finally {
      // Answered or failed, the request reached the server (if at all) before now.
      ticket.settle();
    }
    if (response.status !== 429) return response;
    const pauseMs = await admission.learn(response, request);
    if (spare === undefined || pauseMs === undefined) return response;
    return (await resendWhileThrottled(admission, spare, fetchFn, acquireOptions, pauseMs)) ?? response;
  };
}
