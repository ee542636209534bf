/**
 * The budget's spans and metrics, made once per budget from the user's providers: a span
 * `promo_review.budget.wait` for each acquisition that waited, the histogram
 * `promo_review.budget.wait.duration` for every acquisition, the counter `promo_review.budget.pauses`
 * for every 429 learned. Without a provider {@link budgetTelemetry} returns `undefined` and the
 * budget runs none of this (one check per acquisition).
 */
import { redactorFor } from "@promo-review/errors/internal";
import type { ObservedOperation } from "@promo-review/errors/observe";
import {
  cleanAttributes,
  errorType,
  type OtelAttributes,
  type OtelHistogram,
  type OtelInstrumentOptions,
  SPAN_KIND,
  type TelemetryOptions,
  type TracedSpan,
  telemetryFrom,
} from "@promo-review/errors/telemetry";
import type { WindowSpec } from "./rules.js";
import { RATE_BUDGET_VERSION } from "./version.js";

/** Why an acquisition waited: its rule's window was full, or a 429's `Retry-After` paused the key. */
export type WaitReason = "window" | "paused";

/** How long an admitted acquisition waited, and why (`BudgetTicket.waited`). */
export interface Waited {
  /** From the `acquire` call to the admission, in ms. */
  ms: number;
  reason: WaitReason;
}

/** A wait under way: its reason so far (a pause outranks a full window), its rule and its span. */
export interface WaitState {
  reason: WaitReason;
  /** The rule whose window was full; `undefined` while paused (then the request's own rule is named). */
  rule: string | undefined;
  span: TracedSpan | undefined;
}

/** What the budget reports through. */
export interface BudgetTelemetry {
  /** An acquisition that did not wait, admitted (or failed) after `ms` (0 on the synchronous path). */
  measured(windows: readonly WindowSpec[], ms: number, error?: unknown): void;
  /**
   * A wait begins: its span starts under `parent` (else the caller's active span), carrying the
   * `promo_review.retry` event when the wait is a resend's after a 429 (`retryAfterMs`).
   */
  waitStarted(
    windows: readonly WindowSpec[],
    wait: Omit<WaitState, "span">,
    parent: ObservedOperation | TracedSpan | undefined,
    retryAfterMs: number | undefined,
  ): TracedSpan | undefined;
  /** The wait ended after `ms`: admitted, or with `error` (aborted, refused, closed). */
  waitEnded(windows: readonly WindowSpec[], wait: WaitState, ms: number, error?: unknown): void;
  /** A resend after a 429 that did not wait: the `promo_review.retry` event goes on the operation. */
  retried(operation: ObservedOperation | TracedSpan | undefined, retryAfterMs: number): void;
  /** A 429 was learned for a request under `windows` (`undefined`: no request was given). */
  paused(windows: readonly WindowSpec[] | undefined): void;
}

/** The span of an acquisition that waited. */
export const WAIT_SPAN = "promo_review.budget.wait";
/** The histogram of every acquisition's wait, in seconds. */
export const WAIT_METRIC = "promo_review.budget.wait.duration";
/** The counter of 429s learned. */
export const PAUSES_METRIC = "promo_review.budget.pauses";
const RULE = "promo_review.budget.rule";
const REASON = "promo_review.budget.wait_reason";

const WAIT_INSTRUMENT: OtelInstrumentOptions = {
  unit: "s",
  description: "Time waited for the rate budget",
  // Seconds: admitted at once (0), a store's round trip, a window's turn (up to a minute), a pause
  // (up to the one-hour bound on a server's Retry-After).
  advice: {
    explicitBucketBoundaries: [0, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600],
  },
};
const PAUSES_INSTRUMENT: OtelInstrumentOptions = {
  unit: "{pause}",
  description: "429s that paused the rate budget",
};

/**
 * The rule a request is held by, named in every attribute (never the key): of the rules it is under,
 * the tightest (fewest requests per ms), so `POST /v1/links` is reported under `links` (10/min), not
 * `shared` (60/min).
 */
function bindingRule(windows: readonly WindowSpec[]): string {
  let best = windows[0]!;
  for (const w of windows) if (w.limit * best.windowMs < best.limit * w.windowMs) best = w;
  return best.rule;
}

/**
 * The budget's telemetry, or `undefined` without a provider. `secrets` are what the budget knows that
 * must never reach a span or a metric (its `keyId`, in case a key was passed there against the
 * advice); the redactor also removes whatever looks like a credential.
 */
export function budgetTelemetry(
  options: TelemetryOptions,
  secrets: readonly string[],
): BudgetTelemetry | undefined {
  const { tracerProvider, meterProvider } = options;
  if (!tracerProvider && !meterProvider) return undefined;
  const redact = redactorFor(secrets);
  const scope = { name: "@promo-review/rate-budget", version: RATE_BUDGET_VERSION };
  const telemetry = telemetryFrom(options, { ...scope, redact });
  if (telemetry === undefined) return undefined;
  // The histogram takes a point per acquisition, so it is recorded on directly rather than through
  // `telemetry.record`, which cleans and redacts its attributes on every call (microseconds: more than
  // the whole admission). Its attribute sets are few (rule x reason) and fixed: each is cleaned and
  // redacted once, when first used: the hot path redacts nothing and allocates only a lookup key.
  const waitHistogram = (): OtelHistogram | undefined => telemetry.histogram(WAIT_METRIC, WAIT_INSTRUMENT);
  // The rule of each window set (an array the budget reuses), and one attribute set per rule and reason.
  const ruleOf = new WeakMap<readonly WindowSpec[], string>();
  const rule = (windows: readonly WindowSpec[]): string => {
    let name = ruleOf.get(windows);
    if (name === undefined) {
      name = bindingRule(windows);
      ruleOf.set(windows, name);
    }
    return name;
  };
  const attributeSets = new Map<string, OtelAttributes>();
  const attributes = (name: string, reason: WaitReason | "none"): OtelAttributes => {
    const key = `${reason} ${name}`;
    let set = attributeSets.get(key);
    if (set === undefined) {
      set = cleanAttributes({ [RULE]: name, [REASON]: reason }, redact);
      attributeSets.set(key, set);
    }
    return set;
  };
  const record = (name: string, reason: WaitReason | "none", ms: number, error: unknown) => {
    const base = attributes(name, reason);
    waitHistogram()?.record(
      ms / 1000,
      error === undefined ? base : cleanAttributes({ ...base, "error.type": errorType(error) }, redact),
    );
  };
  return {
    measured(windows, ms, error) {
      record(rule(windows), "none", ms, error);
    },
    waitStarted(windows, wait, parent, retryAfterMs) {
      const span = telemetry.startSpan(
        WAIT_SPAN,
        { kind: SPAN_KIND.internal, attributes: attributes(wait.rule ?? rule(windows), wait.reason) },
        // `openTelemetry(...)`'s operation handles are its spans.
        parent as TracedSpan | undefined,
      );
      if (retryAfterMs !== undefined)
        span?.event("promo_review.retry", { "promo_review.retry_after_ms": retryAfterMs });
      return span;
    },
    waitEnded(windows, wait, ms, error) {
      const name = wait.rule ?? rule(windows);
      if (wait.span) {
        // The rule and reason were set at the start; a pause that came during a window's wait changes
        // the reason (a string to redact: set only then).
        const waitMs = { "promo_review.budget.wait_ms": ms };
        wait.span.set(wait.reason === "paused" ? { [REASON]: "paused", ...waitMs } : waitMs);
        wait.span.end(error);
      }
      record(name, wait.reason, ms, error);
    },
    retried(operation, retryAfterMs) {
      (operation as TracedSpan | undefined)?.event("promo_review.retry", {
        "promo_review.retry_after_ms": retryAfterMs,
      });
    },
    paused(windows) {
      telemetry.add(PAUSES_METRIC, PAUSES_INSTRUMENT, 1, windows ? { [RULE]: rule(windows) } : {});
    },
  };
}
