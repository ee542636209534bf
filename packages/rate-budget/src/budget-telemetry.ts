/**
 * What the budget publishes through the observation seam (`@promo-review/errors/observe`): each
 * acquisition (its rule, why it waited, how long), each wait as it starts and ends, a resend after a
 * 429, each pause. Without an observer {@link budgetTelemetry} returns `undefined` and the budget runs
 * none of this (one check per acquisition).
 */
import { redactorFor } from "@promo-review/errors/internal";
import type { BudgetWaitObserver, ObservedOperation, Observer } from "@promo-review/errors/observe";
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

/** A wait under way: its reason so far (a pause outranks a full window), its rule and its observer. */
export interface WaitState {
  reason: WaitReason;
  /** The rule whose window was full; `undefined` while paused (then the request's own rule is named). */
  rule: string | undefined;
  span: BudgetWaitObserver | undefined;
}

/** What the budget reports through. */
export interface BudgetTelemetry {
  /**
   * An acquisition that did not wait, admitted (or failed) after `ms` (0 on the synchronous path);
   * when it is a resend after a 429 of `retryAfterMs` and was admitted, under `operation`, the resend
   * is told too.
   */
  measured(
    windows: readonly WindowSpec[],
    ms: number,
    error: unknown,
    operation: ObservedOperation | undefined,
    retryAfterMs: number | undefined,
  ): void;
  /** A wait begins under `parent`, as a resend's after a 429 when `retryAfterMs` is given. */
  waitStarted(
    windows: readonly WindowSpec[],
    wait: Omit<WaitState, "span">,
    parent: ObservedOperation | undefined,
    retryAfterMs: number | undefined,
  ): BudgetWaitObserver | undefined;
  /** The wait ended after `ms`: admitted, or with `error` (aborted, refused, closed). */
  waitEnded(windows: readonly WindowSpec[], wait: WaitState, ms: number, error?: unknown): void;
  /** A 429 was learned for a request under `windows` (`undefined`: no request was given). */
  paused(windows: readonly WindowSpec[] | undefined): void;
}

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
 * The budget's publisher, or `undefined` without an observer (its `telemetry` option). `secrets` are what the budget knows that
 * must never reach an observer (its `keyId`, in case a key was passed there against the advice); the
 * redactor also removes whatever looks like a credential.
 */
export function budgetTelemetry(
  options: { telemetry?: Observer | undefined },
  secrets: readonly string[],
): BudgetTelemetry | undefined {
  const observer = options.telemetry;
  if (observer === undefined) return undefined;
  const origin = {
    source: { name: "@promo-review/rate-budget", version: RATE_BUDGET_VERSION },
    redact: redactorFor(secrets),
  };
  // An acquisition's report: the rule that held it (the tightest of its windows unless a full one
  // was named) and why it waited ("none": it did not).
  const acquired = (
    windows: readonly WindowSpec[],
    wait: WaitState | undefined,
    ms: number,
    error: unknown,
  ): void =>
    observer.budgetAcquired?.({
      ...origin,
      rule: wait?.rule ?? bindingRule(windows),
      reason: wait?.reason ?? "none",
      ms,
      error,
    });
  return {
    measured(windows, ms, error, operation, retryAfterMs) {
      acquired(windows, undefined, ms, error);
      if (retryAfterMs !== undefined && error === undefined)
        observer.budgetResent?.({ parent: operation, retryAfterMs });
    },
    waitStarted: (windows, wait, parent, retryAfterMs) =>
      observer.budgetWaitStarted?.({
        ...origin,
        rule: wait.rule ?? bindingRule(windows),
        reason: wait.reason,
        parent,
        retryAfterMs,
      }),
    waitEnded(windows, wait, ms, error) {
      wait.span?.ended?.({ ms, reason: wait.reason, error });
      acquired(windows, wait, ms, error);
    },
    paused: (windows) => observer.budgetPaused?.({ ...origin, rule: windows && bindingRule(windows) }),
  };
}
