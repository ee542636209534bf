/**
 * The pipeline's observers on the observation seam (`@promo-review/errors/observe`): the caller's
 * hooks and logger are one {@link Observer} ({@link hooksObserver}), the client's `telemetry` another,
 * and the client publishes to both through {@link bothObservers}.
 * @packageDocumentation
 */
import type { PromoReviewError } from "@promo-review/errors";
import type { Redactor } from "@promo-review/errors/internal";
import type { AttemptObserver, Observer } from "@promo-review/errors/observe";
import type { RequestEvent, RequestHooks, RetryEvent } from "./hooks.js";
import { type Logger, logLine } from "./logger.js";

/** What a client observes with: the caller's hooks and logger, and the client's redactor. */
export interface ObserverOptions {
  hooks?: RequestHooks | undefined;
  logger?: Logger | undefined;
  redact: Redactor;
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
 * The caller's hooks and logger as an observer of requests, or `undefined` when neither was given:
 * hooks per attempt, and through the logger one line per request (`debug` when it succeeded, `warn`
 * when it failed) and one per retry (`info`). The URL is the redacted one the pipeline publishes, and
 * no header is ever passed on. The errors are the pipeline's own typed errors.
 */
export function hooksObserver(options: ObserverOptions): Observer | undefined {
  if (!options.hooks && !options.logger) return undefined;
  return {
    requestStarted({ method, url, correlationId }) {
      const started = now();
      return {
        attemptStarted: (attempt) =>
          observeAttempt(options, { method, url, attempt, correlationId }, started),
        ended({ status, error, attempts }) {
          const failure = error as PromoReviewError | undefined;
          const durationMs = rounded(now() - started);
          const outcome = failure ? `failed with ${failure.code}${httpStatus(failure)}` : `-> ${status}`;
          logLine(
            options.logger,
            failure ? "warn" : "debug",
            `promo-review ${method} ${url} ${outcome} in ${durationMs} ms, ${attempts} attempt(s) (correlation id ${correlationId})`,
            // A log line's fields and a hook's event are what the caller sees and prints: a field that does
            // not apply is absent, not `status: undefined` (these spreads change what is shown, so they stay).
            {
              event: "request",
              method,
              url,
              ...(status !== undefined ? { status } : {}),
              ...(failure ? { code: failure.code } : {}),
              attempts,
              durationMs,
              correlationId,
            },
          );
        },
      };
    },
  };
}

/** Observes attempt `base.attempt` of a request that started at `started` (on the `now` clock). */
function observeAttempt(options: ObserverOptions, base: RequestEvent, started: number): AttemptObserver {
  let sentAt: number | undefined;
  const durationMs = () => rounded(now() - (sentAt ?? started));
  return {
    sent() {
      // Hooks hear of the attempt's first request on the wire only, not of its redirect hops.
      if (sentAt !== undefined) return undefined;
      sentAt = now();
      callHook(options, "beforeRequest", { ...base });
      return undefined;
    },
    ended({ status, error }) {
      if (sentAt === undefined) return;
      callHook(options, "afterResponse", {
        ...base,
        ...(status !== undefined ? { status } : {}),
        durationMs: durationMs(),
        ...(error ? { error: error as PromoReviewError } : {}),
      });
    },
    retrying({ error: published, delayMs }) {
      const error = published as PromoReviewError;
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

/** The callbacks of a request, its attempts and their requests on the wire: what two observers share. */
const REQUEST_CALLBACKS = [
  "requestStarted",
  "attemptStarted",
  "sent",
  "answered",
  "redirected",
  "ended",
  "retrying",
];

/**
 * One observer that tells `first` then `second` of each request, each attempt and each request on the
 * wire; what they return is paired the same way, and the headers their `sent` return are merged
 * (`second`'s win on a clash). Either may be absent. Operations are not paired: the packages publish
 * them to the client's `telemetry` alone, and an operation's handle is that observer's own.
 */
function paired<T extends object>(first: T | undefined, second: T | undefined): T | undefined {
  if (!first || !second) return first ?? second;
  const both: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of REQUEST_CALLBACKS) {
    type Callbacks = Record<string, ((...args: unknown[]) => object | undefined) | undefined>;
    const a = (first as Callbacks)[name];
    const b = (second as Callbacks)[name];
    if (!a && !b) continue;
    both[name] = (...args) => {
      const x = a?.apply(first, args);
      const y = b?.apply(second, args);
      return name === "sent" && x && y ? { ...x, ...y } : paired(x, y);
    };
  }
  return both as T;
}

/**
 * The pipeline's observer: `hooks` (the caller's hooks and logger) and `telemetry` (the client's
 * `telemetry` option) each told of every request.
 */
export function bothObservers(
  hooks: Observer | undefined,
  telemetry: Observer | undefined,
): Observer | undefined {
  return paired(hooks, telemetry);
}
