import { errorFromResponse, isOverWaitBound, MAX_TIMER_MS } from "@promo-review/errors/internal";
import { MemoryStore } from "@promo-review/store";
import { EventEmitter } from "eventemitter3";
import { type BudgetTelemetry, budgetTelemetry, type Waited, type WaitState } from "./budget-telemetry.js";
import { type Clock, systemClock } from "./clock.js";
import { abortedError, closedError, deadlineError, queueFullError, type RequestLabel } from "./errors.js";
import { type Queued, WaitQueue } from "./queue.js";
import {
  type BudgetRequest,
  type CompiledRule,
  compileRules,
  defaultBudgets,
  normaliseBase,
  type RouteTarget,
  targetOf,
  type WindowSpec,
} from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";
import type {
  AcquireOptions,
  Admission,
  BudgetTicket,
  RateBudgetEvents,
  RateBudgetOptions,
  TicketOptions,
} from "./types.js";

interface Waiter extends Queued {
  readonly windows: readonly WindowSpec[];
  readonly ticket: string | undefined;
  readonly label: RequestLabel;
  readonly target: RouteTarget;
  /** On the clock's scale; `Infinity` without a deadline. */
  readonly deadlineAt: number;
  announced: boolean;
  resolve: (waited: Waited | undefined) => void;
  reject: (error: unknown) => void;
  cleanup?: () => void;
  /** When it was queued (clock scale): a wait counts from here. */
  readonly since: number;
  /** Resolve with how it waited (a ticket's `waited`); a plain `acquire` resolves to nothing. */
  readonly report: boolean;
  /** The operation span its wait span goes under (`AcquireOptions.operation`). */
  readonly operation: AcquireOptions["operation"];
  /** A resend's after a 429 of this many ms (the wait span's `promo_review.retry` event). */
  readonly retryAfterMs: number | undefined;
  /** Set once it waits (refused by the store, or held behind one ahead). */
  wait: WaitState | undefined;
  /**
   * The windows it was last refused for ("all" while the key is paused): a waiter behind it that
   * needs one of them waits behind it. Empty until refused, and while its own store call is out.
   */
  holds: ReadonlySet<string> | "all";
  /** When it expects room (clock scale): its timer fires then, or at its deadline if sooner. */
  wakeAt: number;
  /** Its store call is in flight. */
  asking: boolean;
  /** Looks in a row behind a waiter about to take (for the back-off). */
  polls: number;
  /** Its own timer, set from its own flow. */
  timer: unknown;
}

/** What a request takes from: where it goes, and the windows of every budget that applies (never empty). */
interface Route {
  readonly target: RouteTarget;
  readonly windows: WindowSpec[];
}

/** Why a waiter may not ask the store now: who is ahead of it, and until when at least. */
interface Blocked {
  /** When to look again (clock scale). */
  until: number;
  /** The one ahead waits for the key's pause to end. */
  paused: boolean;
  /** The one ahead is about to take (its store call is out, or its timer is due): look again soon. */
  polling: boolean;
  /** The rule of the window it holds (`undefined` while paused). */
  rule: string | undefined;
}

const NO_HOLD: ReadonlySet<string> = new Set();
/** The longest look-again delay behind a waiter about to take (ms). */
const MAX_POLL_MS = 16;

const NO_TICKET: BudgetTicket = Object.freeze({ settle: () => {} });

// One settled promise serves every admission that needs no wait (a promise cannot be changed by
// its holders), sparing an allocation on the hot path. Created on first use, not at import.
let resolved: Promise<undefined> | undefined;
const done = (): Promise<undefined> => {
  resolved ??= Promise.resolve(undefined);
  return resolved;
};

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === "function";

/** Reads a budget's {@link Admission}; set by the class's static block. Internal (fetch.ts). */
export let admissionOf: (budget: RateBudget) => Admission;

/**
 * A client-side rate budget for one API key: `acquire` resolves when every budget that applies to a
 * request has room, taking from all of them at once. A 429 learned from the server pauses the whole
 * key. Waiting requests queue by priority, each with its own signal and deadline, its own timer and
 * its own store call, so that one budget made at module scope serves concurrent requests in Workers
 * (no request waits on another's timer or I/O). An idle budget holds no timer.
 */
export class RateBudget extends EventEmitter<RateBudgetEvents> {
  readonly #base: string;
  readonly #rules: CompiledRule[];
  readonly #store: BudgetStore;
  readonly #synchronous: boolean;
  readonly #key: string;
  readonly #maxQueue: number;
  readonly #clock: Clock;
  readonly #fallbackPauseMs: number;
  readonly #admission: Admission;
  /** The spans and metrics, or `undefined` without a provider: then none of their code runs. */
  readonly #telemetry: BudgetTelemetry | undefined;
  // One array per combination of matching rules, so stores can cache by identity.
  readonly #windowSets = new Map<number, WindowSpec[]>();
  readonly #queue = new WaitQueue<Waiter>();
  #pausedAt: number | undefined;
  #closed = false;
  readonly #ticketPrefix: string;
  #memo: { url: string; method: string | undefined; route: Route | undefined } | undefined;
  #ticketSeq = 0;
  /** Tells `storeError` listeners (an arrow, so a rejected store call can be handed it as it is). */
  readonly #storeError = (error: unknown): void => {
    this.emit("storeError", { error });
  };

  /** Prefer {@link createRateBudget}. */
  constructor(options: RateBudgetOptions) {
    super();
    this.#base = normaliseBase(options.baseUrl);
    this.#clock = options.clock ?? systemClock();
    this.#rules = compileRules(
      options.budgets ?? defaultBudgets(),
      options.safetyMarginMs ?? 200,
      options.burst,
      options.maxLatencyMs,
    );
    if (this.#rules.length > 30) throw new RangeError("at most 30 budgets");
    this.#store = options.store ?? new MemoryStore({ clock: this.#clock });
    this.#synchronous = this.#store.synchronous === true;
    this.#key = options.keyId ?? "default";
    this.#maxQueue = options.maxQueue ?? 1000;
    this.#fallbackPauseMs = options.fallbackPauseMs ?? 1000;
    // The budget never holds the API key, only its id; redacted anyway should a key be passed there.
    this.#telemetry = budgetTelemetry(options, options.keyId === undefined ? [] : [options.keyId]);
    // Tickets must be unique across every process sharing a store.
    this.#ticketPrefix = crypto.randomUUID();
    // Bound once, so that `const { acquire, learn } = budget` works for non-ky callers.
    this.acquire = this.acquire.bind(this) as RateBudget["acquire"];
    this.learn = this.learn.bind(this);
    this.#admission = {
      admit: (request, acquireOptions, retryAfterMs) =>
        this.#acquireTicket(request, acquireOptions, retryAfterMs),
      learn: this.learn,
      learnFrom: (response, request) => this.#learnFrom(response, request),
      resend: (options.onThrottled ?? "throw") === "retry",
      maxResends: options.maxThrottleRetries ?? 3,
    };
  }

  static {
    // The one door to the budget's internals, for `budgetedFetch` (fetch.ts) and `kyHooks` (ky-hooks.ts) only.
    admissionOf = (budget) => budget.#admission;
  }

  /** Requests waiting now. */
  get pending(): number {
    return this.#queue.size;
  }

  /** The budgets that apply to a request (their names); empty when it passes straight through. */
  budgetsFor(request: BudgetRequest): string[] {
    // Each rule's windows (the burst one too) name it, in the rules' order.
    return [...new Set(this.#routeOf(request)?.windows.map((w) => w.rule))];
  }

  #windowsFor(target: RouteTarget): WindowSpec[] {
    let mask = 0;
    for (let i = 0; i < this.#rules.length; i++) if (this.#rules[i]!.test(target)) mask |= 1 << i;
    let windows = this.#windowSets.get(mask);
    if (windows === undefined) {
      windows = this.#rules.filter((_, i) => mask & (1 << i)).flatMap((r) => r.windows);
      this.#windowSets.set(mask, windows);
    }
    return windows;
  }

  /**
   * Resolves when every budget that applies to `request` has room, and takes from all of them at
   * once; a request no budget applies to resolves at once. Rejects with an `AbortError` when the
   * signal fires, `BUDGET_DEADLINE` when the deadline passes or provably would, `BUDGET_QUEUE_FULL`
   * when `maxQueue` requests wait already, and with the store's error when a fail-closed store fails.
   *
   * Without `ticket`, the admission counts from the decision (plus `safetyMarginMs`). With
   * `ticket: true` it resolves to a ticket to settle when the response arrived: the server counts a
   * request when it arrives, which is after our decision and before the response, so counting the
   * admission from the response keeps the server's count within the limit whatever the latency (as
   * long as the response comes back within the window). The ky hooks and `budgetedFetch` do this.
   */
  acquire(request: BudgetRequest, options: TicketOptions): Promise<BudgetTicket>;
  acquire(request: BudgetRequest, options?: AcquireOptions & { ticket?: false }): Promise<void>;
  acquire(
    request: BudgetRequest,
    options: AcquireOptions & { ticket?: boolean } = {},
  ): Promise<void> | Promise<BudgetTicket> {
    return options.ticket === true
      ? this.#acquireTicket(request, options)
      : this.#acquirePlain(request, options);
  }

  /**
   * The route of `request`, or `undefined` when no budget applies. Callers repeat the same request
   * shape (a polling loop, a list call): the last one is remembered.
   */
  #routeOf(request: BudgetRequest): Route | undefined {
    const memo = this.#memo;
    if (memo !== undefined && request.url === memo.url && request.method === memo.method) return memo.route;
    const target = targetOf(request, this.#base);
    const windows = target === undefined ? [] : this.#windowsFor(target);
    const route = target === undefined || windows.length === 0 ? undefined : { target, windows };
    if (typeof request.url === "string") this.#memo = { url: request.url, method: request.method, route };
    return route;
  }

  #acquirePlain(request: BudgetRequest, options: AcquireOptions): Promise<void> {
    const route = this.#routeOf(request);
    if (route === undefined) return done();
    return this.#acquire(request, route, options, undefined, false, undefined) as Promise<void>;
  }

  /** `acquire` with `ticket: true`; `retryAfterMs` when it is a resend after a 429 (see `Admission`). */
  async #acquireTicket(
    request: BudgetRequest,
    options: AcquireOptions,
    retryAfterMs?: number,
  ): Promise<BudgetTicket> {
    const route = this.#routeOf(request);
    if (route === undefined) return NO_TICKET;
    const store = this.#store;
    if (store.settle === undefined) {
      const waited = await this.#acquire(request, route, options, undefined, true, retryAfterMs);
      return waited === undefined ? NO_TICKET : { settle: NO_TICKET.settle, waited };
    }
    const ticket = `${this.#ticketPrefix}:${++this.#ticketSeq}`;
    const waited = await this.#acquire(request, route, options, ticket, true, retryAfterMs);
    let settled = false;
    return {
      waited,
      settle: () => {
        if (settled) return;
        settled = true;
        this.#unawaited(() => store.settle?.(this.#key, route.windows, ticket));
      },
    };
  }

  /**
   * Waits for room in `windows` and takes it. Resolves to how the request waited when `report` asks
   * (a ticket's `waited`; `undefined` when it did not wait), else to nothing.
   */
  #acquire(
    request: BudgetRequest,
    { target, windows }: Route,
    options: AcquireOptions,
    ticket: string | undefined,
    report: boolean,
    retryAfterMs: number | undefined,
  ): Promise<Waited | undefined> {
    const label = (): RequestLabel => ({ method: target.method, url: String(request.url) });
    if (this.#closed) return Promise.reject(closedError(label()));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortedError(signal.reason, label()));
    const deadlineAt = this.#deadlineOf(options);
    if (deadlineAt === undefined) return Promise.reject(deadlineError(label(), []));

    let first: Decision | undefined;
    if (this.#queue.size === 0 && this.#synchronous) {
      // The hot path: nobody waits and the store answers synchronously, so no promise is chained.
      try {
        first = this.#store.take(this.#key, windows, ticket) as Decision;
      } catch (error) {
        this.#storeError(error);
        return Promise.reject(error);
      }
      if (first.ok) {
        if (this.#pausedAt !== undefined) this.#admitted();
        this.#telemetry?.measured(windows, 0, undefined, options.operation, retryAfterMs);
        return done();
      }
    }

    if (this.#queue.size >= this.#maxQueue) {
      return Promise.reject(
        queueFullError(this.#maxQueue, label(), first && !first.ok ? first.waitMs : undefined),
      );
    }
    return new Promise<Waited | undefined>((resolve, reject) => {
      const waiter: Waiter = {
        priority: options.priority ?? 0,
        settled: false,
        windows,
        ticket,
        label: label(),
        target,
        deadlineAt,
        announced: false,
        resolve,
        reject,
        since: this.#clock.now(),
        report,
        operation: options.operation,
        retryAfterMs,
        wait: undefined,
        holds: NO_HOLD,
        wakeAt: Number.NEGATIVE_INFINITY,
        asking: false,
        polls: 0,
        timer: undefined,
      };
      this.#enqueue(waiter, signal, first);
    });
  }

  /** The deadline of `options` on the clock's scale (`Infinity` without one); `undefined` once passed. */
  #deadlineOf(options: AcquireOptions): number | undefined {
    if (options.deadline === undefined && options.maxWaitMs === undefined) return Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    let deadlineAt = Number.POSITIVE_INFINITY;
    if (options.deadline !== undefined) deadlineAt = now + (Number(options.deadline) - Date.now());
    if (options.maxWaitMs !== undefined) deadlineAt = Math.min(deadlineAt, now + options.maxWaitMs);
    return deadlineAt < now ? undefined : deadlineAt;
  }

  /**
   * Queues a waiter (the signal fails it) and makes its first attempt, here in the caller's own flow.
   *
   * Why every waiter has its own timer and makes its own store call: in Cloudflare Workers a request
   * may only wait on its own I/O and timers. A client made at module scope serves many requests at
   * once; had one timer and one dispatcher admitted everybody, a waiter would be resolved from
   * whichever request ran the dispatch, and workerd cancels a request whose own work is done while
   * it waits ("your Worker's code had hung"), or drops the timer when the request that set it ends.
   * A store call may have to be made in the waiter's own context too (a Durable Object stub is per
   * request). So the queue only decides who may take first; each waiter wakes itself (its timer is
   * set from its own flow: here, or in its own timer's callback) and asks the store itself.
   */
  #enqueue(waiter: Waiter, signal: AbortSignal | null | undefined, first: Decision | undefined): void {
    if (signal) {
      const onAbort = (): void => this.#fail(waiter, abortedError(signal.reason, waiter.label));
      signal.addEventListener("abort", onAbort, { once: true });
      waiter.cleanup = () => {
        signal.removeEventListener("abort", onAbort);
        this.#disarm(waiter);
      };
    } else {
      waiter.cleanup = () => this.#disarm(waiter);
    }
    this.#queue.push(waiter);
    // Refused on the hot path: the decision says what is full and until when.
    if (first !== undefined && !first.ok) this.#decided(waiter, first);
    else this.#attempt(waiter);
  }

  /**
   * One attempt of `waiter`, always in its own flow: it asks the store unless a waiter ahead of it
   * needs one of its windows (priorities and arrival order), in which case it sleeps until that one
   * expects room. A waiter whose windows are free goes even when one ahead of it waits for another
   * window (a link capture waiting for its 10/min must not hold up a GET).
   */
  #attempt(waiter: Waiter): void {
    if (waiter.settled) return;
    const now = this.#clock.now();
    if (waiter.deadlineAt < now) {
      this.#fail(waiter, deadlineError(waiter.label, []));
      return;
    }
    const blocked = this.#blockedAhead(waiter, now);
    if (blocked === undefined) {
      waiter.polls = 0;
      this.#ask(waiter);
      return;
    }
    // Held behind one about to take (its store call out), a request is not waiting for room yet: with
    // a shared store every concurrent acquisition is, and none of them would be a wait for a window.
    if (!blocked.polling) this.#waits(waiter, blocked.paused, blocked.rule);
    this.#announce(waiter, blocked.paused, 0);
    if (blocked.polling) {
      // The one ahead is taking now; what it leaves decides whether there is room behind it. Look
      // again at once (after it), then backing off, so a slow store is not polled in a tight loop.
      waiter.wakeAt = now + (waiter.polls === 0 ? 0 : Math.min(MAX_POLL_MS, 2 ** (waiter.polls - 1)));
      waiter.polls++;
    } else {
      waiter.polls = 0;
      waiter.wakeAt = Math.max(now, blocked.until);
      if (waiter.wakeAt > waiter.deadlineAt && now >= waiter.deadlineAt) {
        // Its deadline has come and a waiter ahead still holds its window.
        this.#fail(waiter, deadlineError(waiter.label, []));
        return;
      }
    }
    this.#arm(waiter, now);
  }

  /**
   * Whether a waiter ahead of `waiter` must go first, and until when at least. One ahead that was
   * refused holds the windows it was refused for (all of them while paused) until it expects room.
   * One ahead that is about to take (its store call is out, or its timer is due) goes first on every
   * window it shares with `waiter`: timers due at one instant may fire in any order, and the one
   * ahead must still take first. The nearest such waiter answers; a later look finds the next.
   */
  #blockedAhead(waiter: Waiter, now: number): Blocked | undefined {
    for (const ahead of this.#queue) {
      if (ahead === waiter) return undefined;
      const due = ahead.asking || ahead.wakeAt <= now;
      const holds = ahead.holds;
      const paused = holds === "all";
      if (!due && paused) return { until: ahead.wakeAt, paused, polling: false, rule: undefined };
      if (!due && !paused && holds.size === 0) continue;
      for (const w of waiter.windows) {
        const shared = due || paused ? ahead.windows.some((a) => a.id === w.id) : holds.has(w.id);
        if (shared) return { until: ahead.wakeAt, paused, polling: due, rule: paused ? undefined : w.rule };
      }
    }
    return undefined;
  }

  /** `waiter` asks the store, from its own flow; the answer comes back to it alone. */
  #ask(waiter: Waiter): void {
    let answer: Decision | Promise<Decision>;
    try {
      answer = this.#store.take(this.#key, waiter.windows, waiter.ticket);
    } catch (error) {
      this.#storeError(error);
      this.#fail(waiter, error);
      return;
    }
    if (!isThenable(answer)) {
      this.#decided(waiter, answer);
      return;
    }
    waiter.asking = true;
    waiter.holds = NO_HOLD;
    answer.then(
      (decision) => {
        waiter.asking = false;
        this.#decided(waiter, decision);
      },
      (error: unknown) => {
        waiter.asking = false;
        this.#storeError(error);
        this.#fail(waiter, error);
      },
    );
  }

  /** The store's answer to `waiter`: admitted, or it holds what is full and sleeps until there is room. */
  #decided(waiter: Waiter, decision: Decision): void {
    if (decision.ok) {
      // An abort that landed while the store answered still spent the admission: nothing to undo.
      if (this.#queue.settle(waiter)) {
        waiter.cleanup?.();
        const waited = this.#waitEnded(waiter, undefined);
        waiter.resolve(waiter.report ? waited : undefined);
      }
      this.#admitted();
      return;
    }
    if (waiter.settled) return;
    const now = this.#clock.now();
    this.#refused(waiter, decision, now);
    if (waiter.settled) return;
    waiter.holds = decision.paused ? "all" : new Set(decision.full);
    waiter.wakeAt = now + decision.waitMs;
    this.#arm(waiter, now);
  }

  /** Sets the waiter's own timer: when it expects room, or at its deadline if that comes first. */
  #arm(waiter: Waiter, now: number): void {
    this.#disarm(waiter);
    const delay = Math.min(waiter.wakeAt, waiter.deadlineAt) - now;
    waiter.timer = this.#clock.setTimer(
      () => {
        waiter.timer = undefined;
        this.#attempt(waiter);
      },
      // Whole ms, rounded up: a timer that fires a fraction early would only find the window still
      // full. Never past a timer's 2^31 - 1 ms: a longer one would fire after 1 ms, again and again;
      // one that fires early finds the window still full and sets the next timer.
      Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(delay))),
    );
  }

  #disarm(waiter: Waiter): void {
    if (waiter.timer !== undefined) {
      this.#clock.clearTimer(waiter.timer);
      waiter.timer = undefined;
    }
  }

  /**
   * Pauses the whole key (every budget) for `ms`, as a 429 demands; a longer pause in force stays.
   * The pause is taken as given, never clamped. With a shared store every process sharing the key pauses.
   */
  pauseFor(ms: number, source: "response" | "pauseFor" = "pauseFor", status?: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms))
      throw new RangeError(`pause must be a finite number of ms >= 0, got ${ms}`);
    this.#markPaused();
    // An event the caller sees and prints: `status` is absent when none applies, not `undefined`.
    this.emit("throttled", { pauseMs: ms, source, ...(status === undefined ? {} : { status }) });
    // Nobody is woken: a pause only makes waits longer, and each waiter learns of it from its own
    // next store call, in its own flow (see #enqueue for why no request settles another's wait).
    this.#unawaited(() => this.#store.pause(this.#key, ms));
  }

  /** A store call nobody waits for (a pause, a ticket's settling): its failure is a `storeError` event. */
  #unawaited(call: () => unknown): void {
    try {
      const done = call();
      if (isThenable(done)) done.then(undefined, this.#storeError);
    } catch (error) {
      this.#storeError(error);
    }
  }

  /**
   * Learns from a response: a 429 for a request under a budget pauses the key for the server's
   * `Retry-After` or `retry_info`, whichever is larger (else `fallbackPauseMs`). Reads a clone of the
   * body, leaving `response` readable. Returns the pause in ms, or `undefined` for anything else,
   * including a wait over `MAX_SERVER_WAIT_MS` (one hour), which does not pause the budget.
   */
  async learn(response: Response, request?: BudgetRequest): Promise<number | undefined> {
    return this.#learnFrom(response.bodyUsed ? response : response.clone(), request);
  }

  /** {@link learn} on a response whose body may be consumed (ky hands its hooks a clone already). */
  async #learnFrom(response: Response, request?: BudgetRequest): Promise<number | undefined> {
    if (response.status !== 429) return undefined;
    let windows: WindowSpec[] | undefined;
    if (request !== undefined) {
      windows = this.#routeOf(request)?.windows;
      if (windows === undefined) return undefined;
    }
    const error = await errorFromResponse(response);
    const pauseMs = error.retryAfterMs ?? this.#fallbackPauseMs;
    // A wait over the one-hour bound (a daily quota, year 9999, 1e308) is not a pause: holding every
    // call of the key that long would look like a hang. The throttled call fails at once with the
    // server's retryAfterMs (the HTTP client does not retry it), and so does each later call the
    // server refuses, until it stops refusing.
    if (isOverWaitBound(pauseMs)) return undefined;
    this.pauseFor(pauseMs, "response", 429);
    this.#telemetry?.paused(windows);
    return pauseMs;
  }

  /**
   * Rejects every waiting request with `BUDGET_CLOSED` and stops the timer; later `acquire` calls
   * reject too. Requests no budget applies to still pass.
   */
  close(): void {
    this.#closed = true;
    for (const waiter of this.#queue.drain()) {
      waiter.cleanup?.();
      const error = closedError(waiter.label);
      this.#waitEnded(waiter, error);
      waiter.reject(error);
    }
  }

  #markPaused(): void {
    this.#pausedAt ??= this.#clock.now();
  }

  #admitted(): void {
    if (this.#pausedAt !== undefined) {
      const pausedMs = this.#clock.now() - this.#pausedAt;
      this.#pausedAt = undefined;
      this.emit("resumed", { pausedMs });
    }
  }

  #announce(waiter: Waiter, paused: boolean, waitMs: number, budgets: string[] = []): void {
    if (waiter.announced) return;
    waiter.announced = true;
    this.emit("waiting", {
      method: waiter.target.method,
      path: waiter.target.path,
      budgets,
      paused,
      waitMs,
      queued: this.#queue.size,
    });
  }

  /** Handles a refusal for `waiter`: announce it, and fail it now if its deadline cannot be met. */
  #refused(waiter: Waiter, decision: Decision & { ok: false }, now: number): void {
    if (decision.paused && this.#pausedAt === undefined) {
      // Another process sharing the store learned a 429.
      this.#markPaused();
      this.emit("throttled", { pauseMs: decision.waitMs, source: "store" });
    }
    const budgets = [
      ...new Set(decision.full.map((id) => waiter.windows.find((w) => w.id === id)?.rule ?? id)),
    ];
    this.#waits(waiter, decision.paused, budgets[0]);
    if (now + decision.waitMs > waiter.deadlineAt) {
      // The wait is a lower bound, so this deadline is certain to pass: fail fast.
      this.#fail(waiter, deadlineError(waiter.label, budgets, decision.waitMs));
      return;
    }
    this.#announce(waiter, decision.paused, decision.waitMs, budgets);
  }

  #fail(waiter: Waiter, error: unknown): void {
    if (!this.#queue.settle(waiter)) return;
    waiter.cleanup?.();
    this.#waitEnded(waiter, error);
    waiter.reject(error);
  }

  /**
   * `waiter` waits (refused for `rule`'s window, or paused): its wait starts now (its span with it),
   * or, under way already, becomes a pause's if the key paused meanwhile.
   */
  #waits(waiter: Waiter, paused: boolean, rule: string | undefined): void {
    const wait = waiter.wait;
    if (wait !== undefined) {
      if (paused) wait.reason = "paused";
      return;
    }
    const state: WaitState = {
      reason: paused ? "paused" : "window",
      rule: paused ? undefined : rule,
      span: undefined,
    };
    state.span = this.#telemetry?.waitStarted(waiter.windows, state, waiter.operation, waiter.retryAfterMs);
    waiter.wait = state;
  }

  /**
   * A queued acquisition ends, admitted or with `error`: ends its wait span, records its wait time,
   * and returns how it waited (`undefined` when it never did: its only delay was the store's answer).
   */
  #waitEnded(waiter: Waiter, error: unknown): Waited | undefined {
    const ms = this.#clock.now() - waiter.since;
    const { wait } = waiter;
    if (wait === undefined) {
      this.#telemetry?.measured(waiter.windows, ms, error, waiter.operation, waiter.retryAfterMs);
      return undefined;
    }
    this.#telemetry?.waitEnded(waiter.windows, wait, ms, error);
    return { ms, reason: wait.reason };
  }
}

/**
 * Creates a rate budget for one API key. See {@link RateBudgetOptions} for the defaults (the
 * service's published limits, an in-memory store, a 200 ms safety margin).
 */
export function createRateBudget(options: RateBudgetOptions): RateBudget {
  return new RateBudget(options);
}
