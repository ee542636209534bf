/**
 * The errors a budget raises. They are `@promo-review/errors` classes, so callers branch on `code`
 * and `retryable` the same way as for the service's own errors.
 */
import { PromoReviewError, RateLimitError, type TransportError } from "@promo-review/errors";
import { errorFromTransport } from "@promo-review/errors/internal";

/** Codes of the errors this package raises. */
export const BUDGET_CODES = {
  /** The wait queue holds `maxQueue` requests already: refused at once rather than queued without bound. */
  queueFull: "BUDGET_QUEUE_FULL",
  /** The request could not be admitted before its deadline. */
  deadline: "BUDGET_DEADLINE",
  /** The budget was closed while the request waited. */
  closed: "BUDGET_CLOSED",
  /** The store (Redis) could not be reached and the store fails closed. */
  storeUnavailable: "BUDGET_STORE_UNAVAILABLE",
} as const;

/** Which request, for messages: method and URL only, never headers. */
export interface RequestLabel {
  method: string;
  url: string;
}

/** The queue is full: a `RateLimitError` (retryable) saying how long until the budget next has room. */
export function queueFullError(
  maxQueue: number,
  request: RequestLabel,
  retryAfterMs?: number,
): RateLimitError {
  return new RateLimitError({
    code: BUDGET_CODES.queueFull,
    message: `The rate budget's wait queue is full (maxQueue ${maxQueue}); the request was not sent`,
    request,
    retryAfterMs,
  });
}

/** The deadline passed, or provably will pass, before the budget has room. Not retryable: the caller set the deadline. */
export function deadlineError(
  request: RequestLabel,
  budgets: string[],
  retryAfterMs?: number,
): PromoReviewError {
  const which = budgets.length > 0 ? budgets.join(", ") : "the paused budget";
  return new PromoReviewError({
    code: BUDGET_CODES.deadline,
    message: `The rate budget (${which}) has no room before the request's deadline; the request was not sent`,
    request,
    retryAfterMs,
    retryable: false,
  });
}

/** The caller's signal fired while waiting: an `AbortError` that provably never reached the server. */
export function abortedError(reason: unknown, request: RequestLabel): TransportError {
  return errorFromTransport(reason, { aborted: true, sent: false, method: request.method, url: request.url });
}

/** The budget was closed while the request waited. */
export function closedError(request: RequestLabel): PromoReviewError {
  return new PromoReviewError({
    code: BUDGET_CODES.closed,
    message: "The rate budget was closed while the request waited; the request was not sent",
    request,
  });
}
