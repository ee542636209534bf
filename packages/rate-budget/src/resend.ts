import type { AcquireOptions, Admission, FetchLike } from "./types.js";

/**
 * After a 429 was learned (the budget is paused), waits for the pause and the budget and sends
 * `request` again, up to `maxThrottleRetries` times; each resend takes budget, since the server
 * counts it. Returns the first answer that is not a 429, else the last 429 (`undefined` when no
 * resend is allowed). A 429 means "not processed", so resending even a POST cannot duplicate work.
 * `pauseMs` is the pause the 429 that led here asked for: each resend's wait (its span, with a
 * `promo_review.retry` event carrying the pause, when the budget has a tracer) is told the pause.
 *
 * Why not `retrying` from `@promo-review/http`, the SDK's one retry loop: this loop retries on an
 * answer (a 429 is returned to `fetch`'s caller, never thrown), and its wait is not a delay it
 * computes but the budget's own admission, paused by `learn` for the server's Retry-After under the
 * same one-hour bound (`isOverWaitBound` from `@promo-review/errors/internal`). Taking http's loop
 * would add a dependency on http to a package that serves ky and plain `fetch` users without it,
 * to replace three lines of loop.
 */
export async function resendWhileThrottled(
  admission: Admission,
  request: Request,
  fetchFn: FetchLike,
  options: AcquireOptions,
  pauseMs: number,
): Promise<Response | undefined> {
  let last: Response | undefined;
  let retryAfterMs: number | undefined = pauseMs;
  for (let attempt = 0; attempt < admission.maxResends; attempt++) {
    const ticket = await admission.admit(request, options, retryAfterMs);
    try {
      last = await fetchFn(request.clone());
    } finally {
      ticket.settle();
    }
    if (last.status !== 429) return last;
    retryAfterMs = await admission.learn(last, request);
  }
  return last;
}
