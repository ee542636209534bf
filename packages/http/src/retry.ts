import {
  errorFromTransport,
  type PromoReviewError,
  RateLimitError,
  ServerError,
  TransportError,
} from "@promo-review/errors";

/** When and how often a request is tried again. */
export interface RetryPolicy {
  /** Retries after the first attempt. Default 3. */
  limit: number;
  /** First backoff step; doubles each retry, with full jitter. Default 300 ms. */
  baseDelayMs: number;
  /** Ceiling of one backoff step (not of a server-given `Retry-After`, which is honoured as said). Default 10 s. */
  maxDelayMs: number;
  /** Retry a 429 (it means "not processed", so even a POST is safe). Default true. */
  retryOnRateLimit: boolean;
  /** The random source for jitter, in [0, 1). */
  random: () => number;
}

/** The defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: RetryPolicy = {
  limit: 3,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  retryOnRateLimit: true,
  random: Math.random,
};

/**
 * Whether retrying `error` cannot duplicate work. A 429 was not processed; a 5xx, a timeout or a
 * broken connection may have been, so those are retried only for idempotent requests, or when the
 * request provably never reached the service.
 */
export function isSafeToRetry(error: PromoReviewError, idempotent: boolean, policy: RetryPolicy): boolean {
  if (error instanceof RateLimitError) return policy.retryOnRateLimit;
  if (error instanceof TransportError) {
    if (!error.retryable) return false;
    return idempotent || !error.mayHaveReachedServer;
  }
  if (error instanceof ServerError) return idempotent;
  return false;
}

/**
 * The wait before retry number `retry` (1-based): the server's `retryAfterMs` when it gave one (taken as
 * said, never clamped), else exponential backoff with full jitter, capped at `maxDelayMs`.
 */
export function retryDelay(error: PromoReviewError | undefined, retry: number, policy: RetryPolicy): number {
  if (error?.retryAfterMs !== undefined) return error.retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling * policy.random());
}

/**
 * Waits `ms`, or rejects with an `AbortError` as soon as `signal` fires. The timer is cleared either
 * way, so an aborted wait leaves nothing running.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(errorFromTransport(signal.reason, { aborted: true, sent: false }));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(errorFromTransport(signal?.reason, { aborted: true, sent: false }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
