/**
 * The rate budget's public types, apart from the logic that implements them, plus the one internal
 * contract (`Admission`) through which the ky hooks and `budgetedFetch` use a budget.
 */
import type { ObservedOperation, Observer } from "@promo-review/errors/observe";
import type { Waited } from "./budget-telemetry.js";
import type { Clock } from "./clock.js";
import type { BudgetRequest, BudgetRule } from "./rules.js";
import type { BudgetStore } from "./store.js";

/**
 * Options of `createRateBudget`. `telemetry` (an observer: `openTelemetry(...)` from
 * `@promo-review/opentelemetry`) hears of every acquisition, wait and pause; without it none of that
 * code runs.
 */
export interface RateBudgetOptions {
  /** The main API's origin (and path prefix, if any). Requests elsewhere pass straight through. */
  baseUrl: string | URL;
  /**
   * What observes the budget: each acquisition (its rule, why and how long it waited), each wait, each
   * pause. `openTelemetry({ tracerProvider, meterProvider })` reports them as wait spans and metrics.
   * Default: none.
   */
  telemetry?: Observer | undefined;
  /**
   * The budgets, replacing the defaults (see `defaultBudgets()`: 60 per minute for every `/v1/`
   * request, 10 per minute for `POST /v1/links`).
   */
  budgets?: readonly BudgetRule[];
  /**
   * Where the budgets live: a store of `@promo-review/store` (`redisStore(client)`,
   * `durableObjectStore(namespace)`, `denoKvStore(kv)`, your own through `sharedStore`), the same one
   * that may hold the webhook claims and upload resume points. Default: a new `memoryStore()` (this
   * process only).
   */
  store?: BudgetStore;
  /**
   * Whose budget: the service limits per API key, so processes sharing a key share a `keyId`. Pass
   * a hash of the key, never the key itself (it ends up in store keys). Default `"default"`.
   */
  keyId?: string;
  /** Requests allowed to wait at once; one more is refused with `BUDGET_QUEUE_FULL`. Default 1000. */
  maxQueue?: number;
  /** Default burst size for budgets that set none (see `BudgetRule.burst`). Default: the limit. */
  burst?: number;
  /**
   * Added to every window, in ms. The client admits at send time, the server counts at arrival;
   * when latency varies, two requests sent a full window apart can arrive closer together. Default 200.
   */
  safetyMarginMs?: number;
  /**
   * The longest a request admitted with a ticket (`acquire` with `ticket: true`, the ky hooks, `budgetedFetch`) is
   * assumed to take to reach the server. Until its ticket is settled, the admission counts as if the
   * request arrived this long after the decision, so a request stalled on its way (a busy event loop,
   * a slow connection) keeps its slot. Default 10 000 ms.
   */
  maxLatencyMs?: number;
  /**
   * What the ky hooks and `fetch` wrapper do when the server still answers 429: `"throw"` hands the
   * 429 to the caller (ky throws its `HTTPError`, the caller's retry policy decides), `"retry"` waits
   * for the pause and the budget and sends the request again, up to `maxThrottleRetries` times (a
   * 429 means the request was not processed, so even a POST is safe to resend). Default `"throw"`.
   */
  onThrottled?: "retry" | "throw";
  /** Resends after a 429 in `"retry"` mode. Default 3. */
  maxThrottleRetries?: number;
  /** The pause after a 429 that carries neither `Retry-After` nor `retry_info`. Default 1000 ms. */
  fallbackPauseMs?: number;
  /** The time source; tests pass a manual clock. Default: `performance.now()` and `setTimeout`. */
  clock?: Clock;
}

/** Per-request options of `RateBudget.acquire`. */
export interface AcquireOptions {
  /** Stops waiting: the promise rejects with an `AbortError` (`mayHaveReachedServer: false`). */
  signal?: AbortSignal | null;
  /** Higher is admitted first; equal priorities in arrival order. Default 0. */
  priority?: number;
  /** Give up (`BUDGET_DEADLINE`) unless admitted by this time (epoch ms or a `Date`). */
  deadline?: number | Date;
  /** Give up (`BUDGET_DEADLINE`) unless admitted within this many ms. */
  maxWaitMs?: number;
  /**
   * The operation that waits (`@promo-review/http` passes its request's `parent`, the handle its
   * `telemetry` gave): the budget's observer puts the wait under it (`openTelemetry(...)`: its wait
   * span). Default: the caller's active span.
   */
  operation?: ObservedOperation | undefined;
}

/** Payloads of the events a budget emits. */
export interface RateBudgetEvents {
  /** A request could not go at once and waits. `waitMs` is a lower bound; `budgets` names what is full. */
  waiting: (event: {
    method: string;
    path: string;
    budgets: string[];
    paused: boolean;
    waitMs: number;
    queued: number;
  }) => void;
  /** The budget paused: a 429 was learned (`"response"`), `pauseFor` was called, or another process paused the shared store (`"store"`). */
  throttled: (event: { pauseMs: number; source: "response" | "pauseFor" | "store"; status?: number }) => void;
  /** The first admission after a pause. */
  resumed: (event: { pausedMs: number }) => void;
  /** The store failed; the affected requests reject with the error (a fail-closed store) or went ahead (fail-open). */
  storeError: (event: { error: unknown }) => void;
}

/**
 * An admission that can be settled: call `settle()` once the response (or the failure) came back,
 * and the admission counts from then on instead of from the decision. See `RateBudget.acquire` with `ticket: true`.
 */
export interface BudgetTicket {
  /** Counts the admission from now (idempotent; a no-op for requests outside every budget). */
  settle(): void;
  /**
   * Set when the request waited before it was admitted: how long (ms, from the `acquire` call) and
   * why (`window`: a rule's window was full; `paused`: a 429's `Retry-After` paused the key).
   */
  readonly waited?: Waited | undefined;
}

/** {@link AcquireOptions} asking for a ticket: `acquire` then resolves to a {@link BudgetTicket}. */
export interface TicketOptions extends AcquireOptions {
  /** Return a ticket to settle when the response arrived (the admission then counts from then on). */
  ticket: true;
}

/** A `fetch`-shaped function. */
export type FetchLike = (input: Request) => Promise<Response>;

/**
 * What the hooks read of ky's normalised options. Typed structurally so that this package does not
 * depend on ky; ky 1.14's and ky 2.1's `NormalizedOptions` satisfy it.
 */
export interface KyHookOptions {
  /** ky's signal for the request (the caller's signal combined with ky's own). */
  signal?: AbortSignal | null | undefined;
  /** ky's `context` option; `context.rateBudget` may carry {@link KyBudgetContext}. */
  context?: Record<string, unknown> | undefined;
  /**
   * The fetch ky uses (ky 1 hands it to hooks; ky 2 does not, and a resend there goes through the
   * global `fetch`); resends in `"retry"` mode go through it.
   */
  fetch?: FetchLike | undefined;
}

/** The one argument ky 2 calls its hooks with (the parts the budget's hooks read). */
export interface KyHookState {
  /** The request of this attempt. */
  request: Request;
  /** ky's normalised options. */
  options: KyHookOptions;
  /** The answer (`afterResponse` only; a clone, so its body may be read). */
  response?: Response | undefined;
}

/** Per-request budget options passed through ky's `context` option as `context.rateBudget`. */
export type KyBudgetContext = Omit<AcquireOptions, "signal">;

/**
 * A ky `beforeRequest` hook: ky 1 calls it as `(request, options)`, ky 2 as `(state)`.
 */
export type BudgetBeforeRequestHook = (
  requestOrState: Request | KyHookState,
  options?: KyHookOptions,
) => Promise<void>;
/** A ky `beforeRetry` hook (ky 1 and ky 2 both call it with one state object). */
export type BudgetBeforeRetryHook = (state: KyHookState) => Promise<void>;
/**
 * A ky `afterResponse` hook: ky 1 calls it as `(request, options, response)`, ky 2 as `(state)`.
 */
export type BudgetAfterResponseHook = (
  requestOrState: Request | KyHookState,
  options?: KyHookOptions,
  response?: Response,
) => Promise<Response | undefined>;

/** The hook set to merge into ky's `hooks` option (ky 1 or ky 2). */
export interface BudgetKyHooks {
  beforeRequest: BudgetBeforeRequestHook[];
  /** Takes budget before each of ky 2's retries (ky 1 takes it in `beforeRequest`). */
  beforeRetry: BudgetBeforeRetryHook[];
  afterResponse: BudgetAfterResponseHook[];
}

/**
 * What the ky hooks and `budgetedFetch` need of a budget, built by the budget over its private
 * state (internal: not exported from the package).
 */
export interface Admission {
  /**
   * Waits for the budget and returns the admission's ticket. `retryAfterMs`: this admission is a
   * resend's after a 429 that paused the key this long (the wait span carries it as an event).
   */
  admit(request: BudgetRequest, options: AcquireOptions, retryAfterMs?: number): Promise<BudgetTicket>;
  /** `RateBudget.learn`: learns from a 429, reading a clone of the body; the pause in ms, or `undefined`. */
  learn(response: Response, request: BudgetRequest): Promise<number | undefined>;
  /** `learn` on a response whose body may be consumed (ky hands its hooks a clone already). */
  learnFrom(response: Response, request: BudgetRequest): Promise<number | undefined>;
  /** Whether a 429 is answered by resending (`onThrottled: "retry"`). */
  readonly resend: boolean;
  /** Resends after a 429 in `"retry"` mode (`maxThrottleRetries`). */
  readonly maxResends: number;
}
