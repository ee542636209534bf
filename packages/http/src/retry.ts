import {
  isKnownCode,
  type PromoReviewError,
  RateLimitError,
  ServerError,
  TransportError,
} from "@promo-review/errors";
import { errorFromTransport, isOverWaitBound } from "@promo-review/errors/internal";
import { setLongTimeout } from "./timers.js";

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
  /**
   * The window of the wait before retrying a transient upstream failure (`UPSTREAM_ERROR`, or a bare
   * 502/503/504 without a documented code) that gave no `Retry-After`: the spec says such a failure
   * "is retried after 2 to 5 seconds". The wait is jittered inside it. Default `[2000, 5000]`.
   */
  upstreamDelayMs: readonly [min: number, max: number];
  /** The random source for jitter, in [0, 1). */
  random: () => number;
}

/** The defaults of {@link RetryPolicy}. */
export const DEFAULT_RETRY: RetryPolicy = {
  limit: 3,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  retryOnRateLimit: true,
  upstreamDelayMs: [2000, 5000],
  random: Math.random,
};

const GATEWAY_STATUSES = new Set([502, 503, 504]);

/**
 * Whether `error` is the spec's "transient upstream issue": `UPSTREAM_ERROR`, or a 502/503/504 whose
 * body named no documented code (a proxy's page, an empty body).
 */
export function isUpstreamFailure(error: PromoReviewError): boolean {
  if (error.code === "UPSTREAM_ERROR") return true;
  return error.status !== undefined && GATEWAY_STATUSES.has(error.status) && !isKnownCode(error.code);
}

/**
 * Whether retrying `error` cannot duplicate work. A 429 was not processed; a 5xx, a timeout or a
 * broken connection may have been, so those are retried only for idempotent requests, or when the
 * request provably never reached the service. A server-given wait over `MAX_SERVER_WAIT_MS` (one
 * hour) is never waited for: the error goes to the caller at once, `retryAfterMs` on it.
 */
export function isSafeToRetry(error: PromoReviewError, idempotent: boolean, policy: RetryPolicy): boolean {
  if (error.retryAfterMs !== undefined && isOverWaitBound(error.retryAfterMs)) return false;
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
 * said; `isSafeToRetry` refuses one over the one-hour bound), else for an upstream failure a jittered
 * wait inside `upstreamDelayMs` (2 to 5 s, as the spec says), else exponential backoff with full
 * jitter, capped at `maxDelayMs`.
 */
export function retryDelay(error: PromoReviewError | undefined, retry: number, policy: RetryPolicy): number {
  if (error?.retryAfterMs !== undefined) return error.retryAfterMs;
  if (error !== undefined && isUpstreamFailure(error)) {
    const [min, max] = policy.upstreamDelayMs ?? DEFAULT_RETRY.upstreamDelayMs;
    return Math.round(min + (max - min) * policy.random());
  }
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling * policy.random());
}

/**
 * Waits `ms`, or rejects with an `AbortError` as soon as `signal` fires. The timer is cleared either
 * way, so an aborted wait leaves nothing running; a wait past 2^31 - 1 ms is kept (never 1 ms).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel();
      reject(errorFromTransport(signal?.reason, { aborted: true, sent: false }));
    };
    const cancel = setLongTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** How {@link retrying} decides, waits and tells. */
export interface RetryLoop {
  /**
   * Whether the failure of attempt `attempt` (1-based) is tried again: the predicate, limits
   * included. False ends the loop with that very error.
   */
  shouldRetry(error: unknown, attempt: number): boolean;
  /** Computes the default wait (`retryDelay`: Retry-After as said, jittered backoff). Default `DEFAULT_RETRY`. */
  policy?: RetryPolicy | undefined;
  /** The wait before the next attempt, when `retryDelay` of the error is not it. */
  delayMs?: ((error: unknown, attempt: number) => number) | undefined;
  /** Told before each wait: the failed attempt, its error and the wait. */
  onRetry?: ((error: unknown, attempt: number, delayMs: number) => void) | undefined;
  /**
   * The wait itself. Default `sleep(delayMs, signal)`; a loop that waits for something else (uploads
   * becoming ready) passes its own, which may end the loop by throwing.
   */
  wait?: ((delayMs: number, error: unknown, attempt: number) => Promise<void>) | undefined;
  /** Ends a wait at once with an `AbortError`. */
  signal?: AbortSignal | undefined;
}

/**
 * Runs `attempt(1)`, and after each failure `shouldRetry` accepts, waits and runs the next one: the
 * one retry loop of the SDK (the HTTP client's, the 409 wait for uploads, the comment reply), so the
 * delay rules (a server's `Retry-After` honoured, bounded by `isSafeToRetry`'s hour; jittered
 * backoff under `maxDelayMs`; abort) are the same everywhere. Resolves with the first success.
 */
export async function retrying<T>(attempt: (attempt: number) => Promise<T>, loop: RetryLoop): Promise<T> {
  for (let number = 1; ; number++) {
    try {
      return await attempt(number);
    } catch (error) {
      if (!loop.shouldRetry(error, number)) throw error;
      const delayMs =
        loop.delayMs?.(error, number) ??
        retryDelay(error as PromoReviewError, number, loop.policy ?? DEFAULT_RETRY);
      loop.onRetry?.(error, number, delayMs);
      await (loop.wait ? loop.wait(delayMs, error, number) : sleep(delayMs, loop.signal));
    }
  }
}
