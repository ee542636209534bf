/**
 * The rate budget in OpenTelemetry's words, from what the budget publishes through the observation
 * seam: a span `promo_review.budget.wait` for each acquisition that waited, the histogram
 * `promo_review.budget.wait.duration` for every acquisition, the counter `promo_review.budget.pauses`
 * for every 429 learned, and the `promo_review.retry` event of a resend after a 429.
 */
import type { BudgetWaitReason, ObservationOrigin, Observer } from "@promo-review/errors/observe";
import { type OtelAttributes, type OtelInstrumentOptions, SPAN_KIND } from "./otel-shape.js";
import type { Telemetry } from "./telemetry.js";
import { cleanAttributes, errorType, type TracedSpan } from "./traced-span.js";

/** The span of an acquisition that waited. */
const WAIT_SPAN = "promo_review.budget.wait";
/** The histogram of every acquisition's wait, in seconds. */
const WAIT_METRIC = "promo_review.budget.wait.duration";
/** The counter of 429s learned. */
const PAUSES_METRIC = "promo_review.budget.pauses";
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
 * The budget's callbacks of the OpenTelemetry observer, on `telemetryOf` (one package's telemetry per
 * client). The histogram takes a point per acquisition, so it is recorded on directly rather than
 * through `telemetry.record`, which cleans and redacts its attributes on every call (microseconds:
 * more than the whole admission). Its attribute sets are few (rule x reason) and fixed: each is
 * cleaned and redacted once, when first used, so the hot path redacts nothing.
 */
export function budgetCallbacks(
  telemetryOf: (origin: ObservationOrigin) => Telemetry | undefined,
  spanOf: (operation: unknown) => TracedSpan | undefined,
): Pick<Observer, "budgetAcquired" | "budgetWaitStarted" | "budgetResent" | "budgetPaused"> {
  const attributeSets = new WeakMap<Telemetry, Map<string, OtelAttributes>>();
  const attributes = (telemetry: Telemetry, origin: ObservationOrigin, rule: string, reason: string) => {
    let sets = attributeSets.get(telemetry);
    if (!sets) {
      sets = new Map();
      attributeSets.set(telemetry, sets);
    }
    const key = `${reason} ${rule}`;
    let set = sets.get(key);
    if (set === undefined) {
      set = cleanAttributes({ [RULE]: rule, [REASON]: reason }, origin.redact);
      sets.set(key, set);
    }
    return set;
  };
  const record = (
    origin: ObservationOrigin,
    rule: string,
    reason: BudgetWaitReason,
    ms: number,
    error: unknown,
  ) => {
    const telemetry = telemetryOf(origin);
    if (!telemetry) return;
    const base = attributes(telemetry, origin, rule, reason);
    telemetry
      .histogram(WAIT_METRIC, WAIT_INSTRUMENT)
      ?.record(
        ms / 1000,
        error === undefined
          ? base
          : cleanAttributes({ ...base, "error.type": errorType(error) }, origin.redact),
      );
  };
  return {
    budgetAcquired({ rule, reason, ms, error, ...origin }) {
      record(origin, rule, reason, ms, error);
    },
    budgetWaitStarted({ rule, reason, parent, retryAfterMs, ...origin }) {
      const telemetry = telemetryOf(origin);
      const span = telemetry?.startSpan(
        WAIT_SPAN,
        { kind: SPAN_KIND.internal, attributes: attributes(telemetry, origin, rule, reason) },
        spanOf(parent),
      );
      if (!span) return undefined;
      if (retryAfterMs !== undefined)
        span.event("promo_review.retry", { "promo_review.retry_after_ms": retryAfterMs });
      return {
        ended({ ms, reason: ending, error }) {
          // The rule and reason were set at the start; a pause that came during a window's wait changes
          // the reason (a string to redact: set only then).
          const waitMs = { "promo_review.budget.wait_ms": ms };
          span.set(ending === "paused" && reason !== "paused" ? { [REASON]: "paused", ...waitMs } : waitMs);
          span.end(error);
        },
      };
    },
    budgetResent({ parent, retryAfterMs }) {
      spanOf(parent)?.event("promo_review.retry", { "promo_review.retry_after_ms": retryAfterMs });
    },
    budgetPaused({ rule, ...origin }) {
      telemetryOf(origin)?.add(
        PAUSES_METRIC,
        PAUSES_INSTRUMENT,
        1,
        rule === undefined ? {} : { [RULE]: rule },
      );
    },
  };
}
