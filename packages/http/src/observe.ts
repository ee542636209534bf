import type { PromoReviewError } from "@promo-review/errors";
import type { Redactor } from "@promo-review/errors/internal";
import type { RequestEvent, RequestHooks, RetryEvent } from "./hooks.js";
import { type Logger, logLine } from "./logger.js";

/** What a client observes with: the caller's hooks and logger, and the client's redactor. */
export interface ObserverOptions {
  hooks?: RequestHooks | undefined;
  logger?: Logger | undefined;
  redact: Redactor;
}

/** One attempt being observed: `sent` when it leaves (once), `ended` when it has an outcome. */
export interface AttemptObservation {
  sent(): void;
  ended(outcome: { status?: number; error?: PromoReviewError }): void;
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

/**
 * Builds what a client calls around each request: hooks per attempt, and through the logger one line
 * per request (`debug` when it succeeded, `warn` when it failed) and one per retry (`info`). The URL
 * goes through `redact` before anything sees it, and no header is ever passed on.
 */
export function createObserver({ hooks, logger, redact }: ObserverOptions) {
  const call = <E>(name: keyof RequestHooks, hook: ((event: E) => unknown) | undefined, event: E) => {
    if (!hook) return;
    const report = (error: unknown) =>
      logLine(logger, "error", `promo-review ${name} hook threw: ${redact(String(error))}`, { hook: name });
    try {
      const returned = hook(event);
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  };

  return {
    request(method: string, rawUrl: string, correlationId: string): RequestObservation {
      const url = redact(rawUrl);
      const started = now();
      return {
        attempt(number) {
          const base: RequestEvent = { method, url, attempt: number, correlationId };
          let sentAt: number | undefined;
          const durationMs = () => rounded(now() - (sentAt ?? started));
          return {
            sent() {
              if (sentAt !== undefined) return;
              sentAt = now();
              call("beforeRequest", hooks?.beforeRequest, { ...base });
            },
            ended({ status, error }) {
              if (sentAt === undefined) return;
              call("afterResponse", hooks?.afterResponse, {
                ...base,
                ...(status !== undefined ? { status } : {}),
                durationMs: durationMs(),
                ...(error ? { error } : {}),
              });
            },
            retrying(error, delayMs) {
              const event: RetryEvent = {
                ...base,
                ...(error.status !== undefined ? { status: error.status } : {}),
                durationMs: durationMs(),
                error,
                delayMs,
              };
              call("beforeRetry", hooks?.beforeRetry, event);
              const why = error.status !== undefined ? `${error.code} (HTTP ${error.status})` : error.code;
              logLine(
                logger,
                "info",
                `promo-review retry ${number} of ${method} ${url} after ${why}, in ${delayMs} ms (correlation id ${correlationId})`,
                {
                  event: "retry",
                  method,
                  url,
                  attempt: number,
                  code: error.code,
                  status: error.status,
                  delayMs,
                  correlationId,
                },
              );
            },
          };
        },
        finished({ status, error, attempts }) {
          const durationMs = rounded(now() - started);
          const outcome = error
            ? `failed with ${error.code}${error.status !== undefined ? ` (HTTP ${error.status})` : ""}`
            : `-> ${status}`;
          logLine(
            logger,
            error ? "warn" : "debug",
            `promo-review ${method} ${url} ${outcome} in ${durationMs} ms, ${attempts} attempt(s) (correlation id ${correlationId})`,
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
    },
  };
}
