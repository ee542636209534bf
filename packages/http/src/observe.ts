import type { PromoReviewError } from "@promo-review/errors";
import type { Redactor } from "@promo-review/errors/internal";
import type { BudgetAdmission } from "./budget.js";
import type { RequestEvent, RequestHooks, RetryEvent } from "./hooks.js";
import { type Logger, logLine } from "./logger.js";
import type { AttemptTrace, RequestTrace } from "./trace-attempt.js";

/** What a client observes with: the caller's hooks and logger, and the client's redactor. */
export interface ObserverOptions {
  hooks?: RequestHooks | undefined;
  logger?: Logger | undefined;
  redact: Redactor;
}

/**
 * One attempt being observed: `sent` when it leaves (for each request on the wire: the first, then
 * each redirect hop), `answered` per answer, `followed` per redirect followed, `ended` when it has
 * an outcome.
 */
export interface AttemptObservation {
  /**
   * A request of this attempt leaves for `hop.url` now, after the budget's wait. Hooks hear of the
   * first only; the trace of each. Returns the headers the trace adds (`traceparent`), if any.
   */
  sent(hop?: { url: string; waited?: BudgetAdmission["waited"] }): Record<string, string> | undefined;
  /** The request on the wire was answered with `status`. */
  answered(status: number): void;
  /** That answer was a redirect, followed. */
  followed(): void;
  ended(outcome: { status?: number | undefined; error?: PromoReviewError }): void;
  /** The failed attempt is retried after `delayMs`. */
  retrying(error: PromoReviewError, delayMs: number): void;
}

/** One request being observed across its attempts. */
export interface RequestObservation {
  attempt(number: number): AttemptObservation;
  /** The request's final outcome: one log line per request. */
  finished(outcome: { status?: number; error?: PromoReviewError; attempts: number }): void;
}

const now = (): number => globalThis.performance?.now() ?? Date.now();
const rounded = (ms: number): number => Math.round(ms * 10) / 10;

/** ` (HTTP 503)` when the error came with a status, else nothing: the log lines' way to name it. */
const httpStatus = (error: PromoReviewError): string =>
  error.status !== undefined ? ` (HTTP ${error.status})` : "";

/**
 * Calls hook `name` with `event`, if the caller set one. Hooks are not awaited: what one throws (or a
 * promise it returns rejects with) goes to the logger at `error`, redacted, and never fails the request.
 */
function callHook<K extends keyof RequestHooks>(
  { hooks, logger, redact }: ObserverOptions,
  name: K,
  event: RetryEvent | RequestEvent,
): void {
  const hook = hooks?.[name] as ((event: RequestEvent) => unknown) | undefined;
  if (!hook) return;
  const report = (error: unknown) =>
    logLine(logger, "error", `promo-review ${name} hook threw: ${redact(String(error))}`, { hook: name });
  try {
    const returned = hook(event);
    if (returned instanceof Promise) returned.catch(report);
  } catch (error) {
    report(error);
  }
}

/**
 * Starts observing one request: hooks per attempt, and through the logger one line per request
 * (`debug` when it succeeded, `warn` when it failed) and one per retry (`info`). The URL goes through
 * `redact` before anything sees it, and no header is ever passed on.
 */
export function observeRequest(
  options: ObserverOptions,
  method: string,
  rawUrl: string,
  correlationId: string,
  trace?: RequestTrace,
): RequestObservation {
  const url = options.redact(rawUrl);
  const started = now();
  return {
    attempt: (number) =>
      observeAttempt(options, { method, url, attempt: number, correlationId }, started, trace?.attempt()),
    finished({ status, error, attempts }) {
      trace?.finished();
      const durationMs = rounded(now() - started);
      const outcome = error ? `failed with ${error.code}${httpStatus(error)}` : `-> ${status}`;
      logLine(
        options.logger,
        error ? "warn" : "debug",
        `promo-review ${method} ${url} ${outcome} in ${durationMs} ms, ${attempts} attempt(s) (correlation id ${correlationId})`,
        // A log line's fields and a hook's event are what the caller sees and prints: a field that does
        // not apply is absent, not `status: undefined` (these spreads change what is shown, so they stay).
        {
          event: "request",
          method,
          url,
          ...(status !== undefined ? { status } : {}),
          ...(error ? { code: error.code } : {}),
          attempts,
          durationMs,
          correlationId,
        },
      );
    },
  };
}

/**
 * Observes attempt `base.attempt` of a request that started at `started` (on the `now` clock), with
 * its `trace` when the client has telemetry.
 */
function observeAttempt(
  options: ObserverOptions,
  base: RequestEvent,
  started: number,
  trace: AttemptTrace | undefined,
): AttemptObservation {
  let sentAt: number | undefined;
  const durationMs = () => rounded(now() - (sentAt ?? started));
  return {
    sent(hop) {
      const headers = hop && trace?.hop(hop.url, hop.waited);
      if (sentAt !== undefined) return headers;
      sentAt = now();
      callHook(options, "beforeRequest", { ...base });
      return headers;
    },
    answered: (status) => trace?.answered(status),
    followed: () => trace?.followed(),
    ended({ status, error }) {
      trace?.ended(error);
      if (sentAt === undefined) return;
      callHook(options, "afterResponse", {
        ...base,
        ...(status !== undefined ? { status } : {}),
        durationMs: durationMs(),
        ...(error ? { error } : {}),
      });
    },
    retrying(error, delayMs) {
      trace?.retrying(error, delayMs, base.attempt);
      const { status, code } = error;
      callHook(options, "beforeRetry", {
        ...base,
        ...(status !== undefined ? { status } : {}),
        durationMs: durationMs(),
        error,
        delayMs,
      });
      const { method, url, attempt, correlationId } = base;
      logLine(
        options.logger,
        "info",
        `promo-review retry ${attempt} of ${method} ${url} after ${code}${httpStatus(error)}, in ${delayMs} ms (correlation id ${correlationId})`,
        { event: "retry", method, url, attempt, code, status, delayMs, correlationId },
      );
    },
  };
}
