/**
 * A request in OpenTelemetry's words: a CLIENT span and a `http.client.request.duration` point per
 * request sent on the wire (each redirect hop is one, as OpenTelemetry's stable HTTP client
 * conventions say), and our own events and counters (budget waits, retries, 429s), from what the
 * pipeline publishes through the observation seam (`observe.ts`).
 */

import { REDACTED } from "@promo-review/errors";
import type { AttemptObserver, PublishedError, RequestObserver } from "@promo-review/errors/observe";
import { type OtelAttributes, SPAN_KIND } from "./otel-shape.js";
import type { Telemetry } from "./telemetry.js";
import { errorType, type TracedSpan, traceparentOf } from "./traced-span.js";

// The conventions' known methods (RFC 9110, PATCH, QUERY); any other is `_OTHER`.
const KNOWN = /^(?:CONNECT|DELETE|GET|HEAD|OPTIONS|PATCH|POST|PUT|QUERY|TRACE)$/;

const now = (): number => globalThis.performance?.now() ?? Date.now();

/** `http.client.request.duration` as the conventions define it: seconds, their advised buckets. */
const DURATION = {
  unit: "s",
  description: "Duration of HTTP client requests.",
  advice: {
    explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10],
  },
};
const RETRIES = { unit: "{retry}" };
const RATE_LIMITED = { unit: "{response}" };

/**
 * `url.full` without what must not be traced: user info becomes `REDACTED:REDACTED` (the conventions'
 * form), an `AWSAccessKeyId` value the SDK's marker, and the fragment (never sent) goes. The span's
 * redactor, which every span string passes through, then removes every configured secret and each
 * `sig`, `signature`, `token`, `X-Amz-Signature`, `X-Goog-Signature` ... value (as `[REDACTED]`: one
 * marker, whoever removed it).
 */
export function spanUrl(url: string): string {
  return url
    .replace(/^([a-z][\w+.-]*:\/\/)[^/?#]*@/i, "$1REDACTED:REDACTED@")
    .replace(/([?&]awsaccesskeyid=)[^&#]*/gi, `$1${REDACTED}`)
    .split("#")[0] as string;
}

/**
 * The template of a path that holds no id (`/v1/promotions`, `/v1/links/imports`): the path itself, a
 * template of one. `undefined` for anything else: a segment with a digit or other than letters,
 * hyphens and underscores (bar the `v1` version) may be an id, and an absolute URL (a `statusUrl`) is
 * the service's to name. Low cardinality is what the conventions ask of `url.template`.
 */
export function literalTemplate(path: string): string | undefined {
  const [bare = ""] = path.split(/[?#]/);
  return /^(?:\/(?:v\d+|[a-z][a-z_-]*))+$/i.test(bare) ? bare : undefined;
}

/** What one request's tracing needs to know. */
export interface RequestTraceOptions {
  method: string;
  /** The path as the caller gave it (relative, or a service-given URL). */
  path: string;
  /** The span name's target and `url.template`; default {@link literalTemplate} of `path`. */
  urlTemplate?: string | undefined;
  /** The operation span: the parent of every CLIENT span, and where our events go. */
  operation?: TracedSpan | undefined;
  /** Return `traceparent` for each request sent (the pipeline adds it only for its own origins). */
  propagate: boolean;
}

/**
 * Starts tracing one request on `telemetry`. Each hop's span starts when it is `sent`, ends when it was
 * `redirected` or the attempt `ended`; a failed attempt's span stays open until `retrying` (the retry's
 * event goes on it when there is no operation) or the request `ended`.
 */
export function traceRequest(
  telemetry: Telemetry,
  options: RequestTraceOptions,
): Required<RequestObserver> & { attemptStarted(attempt: number): Required<AttemptObserver> } {
  const { operation } = options;
  const known = KNOWN.test(options.method);
  const method = known ? options.method : "_OTHER";
  const template = options.urlTemplate ?? literalTemplate(options.path);
  const named = known ? method : "HTTP";
  // Requests already sent for this call (every attempt and every hop): the next one's resend count.
  let sent = 0;
  // The last failed attempt: its span is kept open until we know whether a retry follows (the retry's
  // event goes on it when there is no operation), its attributes for the retry counter.
  let failed: { span: TracedSpan | undefined; error: PublishedError; metric: OtelAttributes } | undefined;
  const closeFailed = () => {
    failed?.span?.end(failed.error);
    failed = undefined;
  };

  return {
    attemptStarted() {
      let span: TracedSpan | undefined;
      let metric: OtelAttributes = {};
      let status: number | undefined;
      // When the hop on the wire left (on the `now` clock); undefined when none is.
      let started: number | undefined;
      // Requests of this attempt on the wire so far: the template names the first one's URL only, not
      // where a redirect led.
      let hops = 0;
      // Records the hop's duration point; `span` is then ended (or kept for `retrying`) by the caller.
      const finish = (error?: PublishedError) => {
        // Every failure is one of our errors, its `code` the `error.type` (a status the request
        // `expect`s is an answer, never an error, whatever its number).
        const type = error && errorType(error);
        const attributes = { ...metric, "http.response.status_code": status, "error.type": type };
        telemetry.record(
          "http.client.request.duration",
          DURATION,
          (now() - (started ?? 0)) / 1000,
          attributes,
        );
        span?.set({ "http.response.status_code": status });
        const ended = span;
        span = undefined;
        started = undefined;
        return ended;
      };
      return {
        sent({ url, waited }) {
          const target = new URL(url);
          const port = Number(target.port) || (target.protocol === "https:" ? 443 : 80);
          metric = {
            "http.request.method": method,
            "server.address": target.hostname.replace(/^\[|\]$/g, ""),
            "server.port": port,
          };
          status = undefined;
          started = now();
          const hopTemplate = hops++ ? undefined : template;
          span = telemetry.startSpan(
            hopTemplate ? `${named} ${hopTemplate}` : named,
            {
              kind: SPAN_KIND.client,
              attributes: {
                ...metric,
                "http.request.method_original": known ? undefined : options.method,
                "url.full": spanUrl(url),
                "url.template": hopTemplate,
                "http.request.resend_count": sent || undefined,
              },
            },
            operation,
          );
          sent++;
          if (waited) {
            (operation ?? span)?.event("promo_review.budget.wait", {
              "promo_review.budget.wait_ms": waited.ms,
              "promo_review.budget.wait_reason": waited.reason,
            });
          }
          if (!options.propagate || !span) return undefined;
          const traceparent = traceparentOf(span);
          return traceparent ? { traceparent } : undefined;
        },
        answered(answer) {
          status = answer;
          if (answer === 429) telemetry.add("promo_review.http.rate_limited", RATE_LIMITED, 1, metric);
        },
        redirected() {
          finish()?.end();
        },
        ended({ error }) {
          // Nothing left the client (refused, or the budget's wait failed): no request to report.
          if (started === undefined) return;
          const kept = metric;
          const ended = finish(error);
          if (error) failed = { span: ended, error, metric: kept };
          else ended?.end();
        },
        retrying({ error, delayMs, attempt }) {
          const type = errorType(error);
          const retryAfter = error.retryAfterMs !== undefined && error.retryAfterMs === delayMs;
          (operation ?? failed?.span)?.event("promo_review.retry", {
            "promo_review.retry.attempt": attempt + 1,
            "promo_review.retry.delay_ms": delayMs,
            "error.type": type,
            "promo_review.retry_after_ms": retryAfter ? delayMs : undefined,
          });
          const metric = failed?.metric ?? { "http.request.method": method };
          telemetry.add("promo_review.http.retries", RETRIES, 1, { ...metric, "error.type": type });
          closeFailed();
        },
      };
    },
    ended() {
      // After a failure, `finished` comes only when no retry follows: that span ends with its error now.
      closeFailed();
    },
  };
}
