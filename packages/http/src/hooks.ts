import type { PromoReviewError } from "@promo-review/errors";

/**
 * What a hook is told about one attempt of a request. The URL has been through the client's
 * `redact` (a credential the service echoed into a `statusUrl` shows as `[REDACTED]`), and no
 * header is ever passed: nothing here holds a secret.
 */
export interface RequestEvent {
  /** `GET`, `POST`, ... */
  method: string;
  /** The request's URL, redacted. */
  url: string;
  /** The attempt this event belongs to: 1 for the first, 2 for the first retry, ... */
  attempt: number;
  /** The `X-Correlation-ID` sent (the same on every attempt of one request). */
  correlationId: string;
  /** The answer's HTTP status (`afterResponse` when the service answered; `beforeRetry` for an HTTP error). */
  status?: number;
  /** Milliseconds from sending the attempt to its outcome (`afterResponse`, `beforeRetry`). */
  durationMs?: number;
  /** Why the attempt failed (`afterResponse` of a failed attempt, `beforeRetry`): a typed, redacted error. */
  error?: PromoReviewError;
}

/** What `beforeRetry` is told: the failed attempt, and the wait before the next one. */
export interface RetryEvent extends RequestEvent {
  /** The wait before the next attempt, in milliseconds. */
  delayMs: number;
}

/**
 * Observers of every request a client sends. They are called synchronously and not awaited; what
 * one throws (or a promise it returns rejects with) is reported to the logger at `error` and never
 * fails the request.
 */
export interface RequestHooks {
  /** Each attempt, when it is sent (after any wait for the rate budget). */
  beforeRequest?: (event: RequestEvent) => unknown;
  /** Each attempt that was sent, when it ended: with `status` when the service answered, `error` when it failed. */
  afterResponse?: (event: RequestEvent) => unknown;
  /** Before each retry, with the error of the attempt that failed and the wait. */
  beforeRetry?: (event: RetryEvent) => unknown;
}
