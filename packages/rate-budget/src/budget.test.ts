import { AbortError, PromoReviewError, RateLimitError } from "@promo-review/errors";
import { MemoryStore } from "@promo-review/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { flush, ManualClock } from "../test/support/clock.js";
import { createRateBudget, type RateBudget } from "./budget.js";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";
import type { RateBudgetOptions } from "./types.js";

const BASE = "http://127.0.0.1:1234";
const GET = { method: "GET", url: `${BASE}/v1/channels` };
const LINK = { method: "POST", url: `${BASE}/v1/links` };

function setup(options: Partial<RateBudgetOptions> = {}) {
  const clock = new ManualClock(1_000_000);
  const budget = createRateBudget({ baseUrl: BASE, safetyMarginMs: 0, clock, ...options });
  return { clock, budget };
}

/** Starts an acquisition and records when (on the manual clock) it settled, and how. */
function track(budget: RateBudget, clock: ManualClock, request = GET, options = {}) {
  const entry: { at?: number; error?: unknown } = {};
  const promise = budget.acquire(request, options).then(
    () => {
      entry.at = clock.now();
    },
    (error: unknown) => {
      entry.at = clock.now();
      entry.error = error;
    },
  );
  return Object.assign(entry, { promise });
}

function fifoSchedule(arrivals: number[], limit: number, windowMs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < arrivals.length; i++) {
    let t = Math.max(arrivals[i]!, out[i - 1] ?? Number.NEGATIVE_INFINITY);
    if (i >= limit) t = Math.max(t, out[i - limit]! + windowMs);
    out.push(t);
  }
  return out;
}

describe("exact sliding windows over arrival patterns (manual clock)", () => {
  // Bursts (many arrivals at one instant) and late bursts (just before a window edge) included.
  const arrivalsArb = fc
    .array(
      fc.oneof(
        fc.record({ gap: fc.integer({ min: 0, max: 300 }), burst: fc.constant(1) }),
        fc.record({ gap: fc.integer({ min: 0, max: 3000 }), burst: fc.integer({ min: 2, max: 40 }) }),
      ),
      { minLength: 1, maxLength: 30 },
    )
    .map((groups) => {
      const times: number[] = [];
      let t = 1_000_000;
      for (const g of groups) {
        t += g.gap;
        for (let i = 0; i < g.burst; i++) times.push(t);
      }
      return times;
    });

  it("property: never more than the limit in any window, and each admission as early as the window allows", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 2000 }),
        arrivalsArb,
        async (limit, windowMs, arrivals) => {
          const { clock, budget } = setup({
            budgets: [{ name: "shared", limit, windowMs, match: { pathPrefix: "/v1/" } }],
            maxQueue: 10_000,
          });
          const entries = [];
          for (const at of arrivals) {
            await clock.advanceTo(at);
            entries.push(track(budget, clock));
          }
          await clock.runAll();
          await Promise.all(entries.map((e) => e.promise));
          const admitted = entries.map((e) => e.at!);
          expect(entries.every((e) => e.error === undefined)).toBe(true);
          expect(maxInAnyWindow(admitted, windowMs)).toBeLessThanOrEqual(limit);
          // Full use: first come first served, each as soon as the sliding window has room.
          expect(admitted).toEqual(fifoSchedule(arrivals, limit, windowMs));
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("property: with a burst size, at most `burst` in any `windowMs * burst / limit` and `limit` in any window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 20 }),
        fc.integer({ min: 1, max: 20 }),
        arrivalsArb,
        async (limit, burstSeed, arrivals) => {
          const burst = Math.min(limit - 1, burstSeed);
          const windowMs = 1000;
          const { clock, budget } = setup({
            budgets: [{ name: "shared", limit, windowMs, match: { pathPrefix: "/v1/" } }],
            burst,
            maxQueue: 10_000,
          });
          const entries = [];
          for (const at of arrivals) {
            await clock.advanceTo(at);
            entries.push(track(budget, clock));
          }
          await clock.runAll();
          await Promise.all(entries.map((e) => e.promise));
          const admitted = entries.map((e) => e.at!);
          expect(maxInAnyWindow(admitted, windowMs)).toBeLessThanOrEqual(limit);
          expect(maxInAnyWindow(admitted, (windowMs * burst) / limit)).toBeLessThanOrEqual(burst);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a late burst at a window edge waits a whole window after the first burst (no 2x at the edge)", async () => {
    const { clock, budget } = setup({ budgets: [{ name: "s", limit: 10, windowMs: 1000, match: {} }] });
    const start = clock.now();
    await clock.advanceTo(start + 990);
    const first = Array.from({ length: 10 }, () => track(budget, clock));
    await clock.advanceTo(start + 1000);
    const second = Array.from({ length: 10 }, () => track(budget, clock));
    await clock.runAll();
    expect(first.map((e) => e.at)).toEqual(Array(10).fill(start + 990));
    expect(second.map((e) => e.at)).toEqual(Array(10).fill(start + 1990));
  });

  it("the safety margin lengthens the window the client enforces", async () => {
    const { clock, budget } = setup({
      safetyMarginMs: 50,
      budgets: [{ name: "s", limit: 2, windowMs: 1000, match: {} }],
    });
    const start = clock.now();
    const entries = Array.from({ length: 3 }, () => track(budget, clock));
    await clock.runAll();
    expect(entries.map((e) => e.at! - start)).toEqual([0, 0, 1050]);
  });
});

describe("tickets: admissions count from when the response arrived", () => {
  it("property: whatever the latency (up to maxLatencyMs), arrivals at the server never exceed the limit in any window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 400 }),
            latency: fc.integer({ min: 0, max: 3000 }),
            arrivesAt: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        async (limit, requests) => {
          const windowMs = 1000;
          const { clock, budget } = setup({
            budgets: [{ name: "s", limit, windowMs, match: {} }],
            maxLatencyMs: 3000,
            maxQueue: 10_000,
          });
          const arrivals: number[] = [];
          const all: Promise<void>[] = [];
          let t = clock.now();
          for (const r of requests) {
            t += r.gap;
            await clock.advanceTo(t);
            all.push(
              budget.acquire(GET, { ticket: true }).then((ticket) => {
                // The server counts it somewhere between our decision and its answer.
                arrivals.push(clock.now() + Math.floor(r.latency * r.arrivesAt));
                clock.setTimer(() => ticket.settle(), r.latency);
              }),
            );
          }
          await clock.runAll();
          await Promise.all(all);
          expect(arrivals).toHaveLength(requests.length);
          expect(maxInAnyWindow(arrivals, windowMs)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("an unsettled ticket holds its slot for maxLatencyMs, and settling is idempotent", async () => {
    const { clock, budget } = setup({
      budgets: [{ name: "s", limit: 1, windowMs: 1000, match: {} }],
      maxLatencyMs: 500,
    });
    const start = clock.now();
    const ticket = await budget.acquire(GET, { ticket: true });
    const next = track(budget, clock);
    await clock.advanceTo(start + 1000);
    expect(next.at).toBeUndefined(); // a plain admission would have left the window by now
    ticket.settle();
    ticket.settle();
    await clock.runAll();
    expect(next.at! - start).toBe(2000); // a window after the settle
  });

  it("requests outside every budget get a ticket that does nothing", async () => {
    const { budget } = setup();
    const ticket = await budget.acquire({ url: "https://elsewhere.example/v1/x" }, { ticket: true });
    ticket.settle();
    const inside = createRateBudget({
      baseUrl: BASE,
      budgets: [{ name: "w", limit: 1, windowMs: 1, match: { method: "PUT" } }],
    });
    await (await inside.acquire(GET, { ticket: true })).settle();
  });
});

describe("budgets: shared, sub-budgets, pass-through", () => {
  it("defaults: 60/min for every /v1/ request, and POST /v1/links takes from both 60/min and 10/min", async () => {
    const { clock, budget } = setup();
    expect(budget.budgetsFor(GET)).toEqual(["shared"]);
    expect(budget.budgetsFor(LINK)).toEqual(["shared", "links"]);
    expect(budget.budgetsFor({ method: "PUT", url: "http://127.0.0.1:9999/v1/uploads/x" })).toEqual([]);
    const start = clock.now();
    const links = Array.from({ length: 11 }, () => track(budget, clock, LINK));
    const gets = Array.from({ length: 50 }, () => track(budget, clock, GET));
    await flush();
    // The 11th link capture waits for its 10/min; GETs behind it go (they need only the shared budget).
    expect(links.slice(0, 10).every((e) => e.at === start)).toBe(true);
    expect(links[10]!.at).toBeUndefined();
    expect(gets.every((e) => e.at === start)).toBe(true);
    expect(budget.pending).toBe(1);
    // 60 taken from the shared budget: a GET now waits too, behind nobody it could overtake.
    const late = track(budget, clock, GET);
    await flush();
    expect(late.at).toBeUndefined();
    await clock.runAll();
    expect(links[10]!.at).toBe(start + 60_000);
    expect(late.at).toBe(start + 60_000);
  });

  it("a waiting request holds its window: later requests for that window queue behind it", async () => {
    const { clock, budget } = setup({
      budgets: [
        { name: "shared", limit: 3, windowMs: 1000, match: { pathPrefix: "/v1/" } },
        { name: "links", limit: 1, windowMs: 1000, match: { method: "POST", path: "/v1/links" } },
      ],
    });
    const start = clock.now();
    const a = track(budget, clock, LINK);
    const b = track(budget, clock, LINK); // waits for links
    const c = track(budget, clock, GET); // shared has room: goes
    const d = track(budget, clock, GET); // shared has room: goes (shared now full)
    const e = track(budget, clock, LINK); // behind b for links
    const f = track(budget, clock, GET); // shared full: waits
    await clock.runAll();
    expect([a, b, c, d, e, f].map((x) => x.at! - start)).toEqual([0, 1000, 0, 0, 2000, 1000]);
  });

  it("requests to other origins, the file service or outside every budget pass straight through, even when paused or closed", async () => {
    const { budget } = setup();
    budget.pauseFor(60_000);
    await expect(budget.acquire({ method: "PUT", url: "http://127.0.0.1:9999/v1/uploads/u" })).resolves.toBe(
      undefined,
    );
    await expect(budget.acquire({ url: `${BASE}/health` })).resolves.toBe(undefined);
    // A port that merely starts with the base's port is another origin.
    await expect(budget.acquire({ url: "http://127.0.0.1:12345/v1/links", method: "POST" })).resolves.toBe(
      undefined,
    );
    budget.close();
    await expect(budget.acquire({ url: "https://example.com/v1/channels" })).resolves.toBe(undefined);
  });

  it("matches paths below a base path, relative paths, URL objects and Requests, ignoring query and fragment", () => {
    const { budget } = setup({ baseUrl: "http://127.0.0.1:1234/api/" });
    expect(budget.budgetsFor({ url: "http://127.0.0.1:1234/api/v1/channels?x=1" })).toEqual(["shared"]);
    expect(
      budget.budgetsFor({ url: new URL("http://127.0.0.1:1234/api/v1/links#f"), method: "post" }),
    ).toEqual(["shared", "links"]);
    expect(budget.budgetsFor(new Request("http://127.0.0.1:1234/api/v1/links", { method: "POST" }))).toEqual([
      "shared",
      "links",
    ]);
    expect(budget.budgetsFor({ url: "/v1/links?a#b", method: "POST" })).toEqual(["shared", "links"]);
    expect(budget.budgetsFor({ url: "http://127.0.0.1:1234/api" })).toEqual([]);
    expect(budget.budgetsFor({ url: "http://127.0.0.1:1234/api?v1" })).toEqual([]);
    expect(budget.budgetsFor({ url: "http://127.0.0.1:1234/v1/channels" })).toEqual([]);
  });

  it("takes predicate rules and per-rule burst", async () => {
    const { clock, budget } = setup({
      budgets: [{ name: "writes", limit: 4, windowMs: 1000, burst: 2, match: (t) => t.method !== "GET" }],
    });
    expect(budget.budgetsFor(GET)).toEqual([]);
    const start = clock.now();
    const entries = Array.from({ length: 4 }, () => track(budget, clock, LINK));
    await clock.runAll();
    expect(entries.map((e) => e.at! - start)).toEqual([0, 0, 500, 500]);
  });

  it("refuses invalid budgets", () => {
    const rule = { name: "a", limit: 1, windowMs: 1, match: {} };
    expect(() => setup({ budgets: [rule, rule] })).toThrow(/two budgets are named "a"/);
    expect(() => setup({ budgets: [{ ...rule, limit: 0 }] })).toThrow(/limit/);
    expect(() => setup({ budgets: [{ ...rule, windowMs: -1 }] })).toThrow(/windowMs/);
    expect(() => setup({ budgets: [{ ...rule, burst: 0.5 }] })).toThrow(/burst/);
    expect(() => setup({ safetyMarginMs: -1 })).toThrow(/safetyMarginMs/);
    expect(() => setup({ maxLatencyMs: -1 })).toThrow(/maxLatencyMs/);
    expect(() =>
      setup({ budgets: Array.from({ length: 31 }, (_, i) => ({ ...rule, name: `r${i}` })) }),
    ).toThrow(/at most 30/);
  });
});

function tooMany(headers: Record<string, string>, body?: unknown): Response {
  return new Response(body === undefined ? "" : JSON.stringify(body), { status: 429, headers });
}

const envelope = (seconds: number) => ({
  error: {
    code: "RATE_LIMITED",
    message: "Too many",
    details: [{ type: "retry_info", retryAfterSeconds: seconds }],
  },
  correlationId: "c0ffee00-0000-4000-8000-000000000000",
});

describe("pause on 429: the server's word, for the whole key", () => {
  it("pauses every budget for the larger of Retry-After and retry_info; waiting requests resume after it", async () => {
    const { clock, budget } = setup();
    const events: string[] = [];
    budget.on("throttled", (e) => events.push(`throttled ${e.pauseMs} ${e.source} ${e.status}`));
    budget.on("resumed", (e) => events.push(`resumed ${e.pausedMs}`));
    const start = clock.now();
    await expect(budget.learn(tooMany({ "Retry-After": "2" }, envelope(1.5)), GET)).resolves.toBe(2000);
    const waiting = [track(budget, clock, GET), track(budget, clock, LINK), track(budget, clock, GET)];
    await clock.runAll();
    expect(waiting.map((e) => e.at! - start)).toEqual([2000, 2000, 2000]);
    expect(events).toEqual(["throttled 2000 response 429", "resumed 2000"]);
  });

  it("takes retry_info when it is the larger, an HTTP-date, and the fallback when the server says nothing", async () => {
    const { budget } = setup({ fallbackPauseMs: 750 });
    await expect(budget.learn(tooMany({ "Retry-After": "3" }, envelope(3.2)))).resolves.toBe(3200);
    const date = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = await budget.learn(tooMany({ "Retry-After": date }));
    expect(fromDate).toBeGreaterThan(8000);
    expect(fromDate).toBeLessThanOrEqual(10_000);
    await expect(budget.learn(tooMany({}))).resolves.toBe(750);
  });

  it("is not clamped: a ten-minute Retry-After holds requests for ten minutes", async () => {
    const { clock, budget } = setup();
    const start = clock.now();
    await budget.learn(tooMany({ "Retry-After": "600" }));
    const entry = track(budget, clock);
    await clock.advance(599_999);
    expect(entry.at).toBeUndefined();
    await clock.runAll();
    expect(entry.at! - start).toBe(600_000);
  });

  it("a later pause wins and a shorter one does not cut it", async () => {
    const { clock, budget } = setup();
    const start = clock.now();
    budget.pauseFor(5000);
    budget.pauseFor(1000);
    const entry = track(budget, clock);
    await clock.runAll();
    expect(entry.at! - start).toBe(5000);
    expect(() => budget.pauseFor(Number.NaN)).toThrow(RangeError);
  });

  it("ignores answers that are not 429 and 429s of requests outside every budget; leaves the body readable", async () => {
    const { budget } = setup();
    const events: unknown[] = [];
    budget.on("throttled", (e) => events.push(e));
    await expect(budget.learn(new Response("ok", { status: 200 }))).resolves.toBeUndefined();
    await expect(
      budget.learn(tooMany({ "Retry-After": "5" }), { method: "PUT", url: "http://files/v1/uploads/u" }),
    ).resolves.toBeUndefined();
    expect(events).toEqual([]);
    const response = tooMany({ "Retry-After": "1" }, envelope(1));
    await budget.learn(response);
    await expect(response.json()).resolves.toMatchObject({ error: { code: "RATE_LIMITED" } });
  });
});

describe("queue: priorities, signals, deadlines, a bounded length", () => {
  const one = { budgets: [{ name: "s", limit: 1, windowMs: 1000, match: {} }] };

  it("admits higher priorities first and equal priorities in arrival order", async () => {
    const { clock, budget } = setup(one);
    const order: string[] = [];
    const go = (name: string, priority?: number) =>
      budget.acquire(GET, priority === undefined ? {} : { priority }).then(() => order.push(name));
    const all = [go("first"), go("low", -1), go("normal-a"), go("high", 5), go("normal-b"), go("higher", 9)];
    await clock.runAll();
    await Promise.all(all);
    expect(order).toEqual(["first", "higher", "high", "normal-a", "normal-b", "low"]);
  });

  it("an aborted wait rejects with AbortError (not sent) and leaves no timer behind", async () => {
    const { clock, budget } = setup(one);
    await budget.acquire(GET);
    const controller = new AbortController();
    const entry = track(budget, clock, GET, { signal: controller.signal });
    await flush();
    expect(budget.pending).toBe(1);
    expect(clock.pendingTimers).toBe(1);
    controller.abort(new Error("user left"));
    await entry.promise;
    expect(entry.error).toBeInstanceOf(AbortError);
    expect((entry.error as AbortError).mayHaveReachedServer).toBe(false);
    expect(budget.pending).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it("an already aborted signal rejects at once", async () => {
    const { budget } = setup();
    const error = await budget.acquire(GET, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
  });

  it("fails fast with BUDGET_DEADLINE when the wait certainly exceeds the deadline", async () => {
    const { clock, budget } = setup(one);
    await budget.acquire(GET);
    await clock.advance(200);
    const error = (await budget
      .acquire(GET, { maxWaitMs: 500 })
      .catch((e: unknown) => e)) as PromoReviewError;
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(error.code).toBe("BUDGET_DEADLINE");
    expect(error.retryable).toBe(false);
    expect(error.retryAfterMs).toBe(800);
    expect(error.message).toMatch(/\(s\)/);
    // A deadline that the wait fits is met.
    const ok = track(budget, clock, GET, { deadline: Date.now() + 60_000 });
    await clock.runAll();
    expect(ok.error).toBeUndefined();
  });

  it("a deadline in the past rejects at once; one passing behind other waiters rejects when it passes", async () => {
    const { clock, budget } = setup(one);
    const past = await budget.acquire(GET, { deadline: new Date(Date.now() - 1) }).catch((e: unknown) => e);
    expect((past as PromoReviewError).code).toBe("BUDGET_DEADLINE");
    await budget.acquire(GET);
    const start = clock.now();
    const ahead = track(budget, clock); // admitted at +1000
    const behind = track(budget, clock, GET, { maxWaitMs: 1500 }); // would need +2000
    await clock.runAll();
    expect(ahead.at! - start).toBe(1000);
    expect((behind.error as PromoReviewError).code).toBe("BUDGET_DEADLINE");
    expect(behind.at! - start).toBeLessThanOrEqual(1500);
  });

  it("refuses with BUDGET_QUEUE_FULL (a RateLimitError) once maxQueue requests wait", async () => {
    const { clock, budget } = setup({ ...one, maxQueue: 2 });
    await budget.acquire(GET);
    const waiting = [track(budget, clock), track(budget, clock)];
    const error = (await budget.acquire(GET).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.code).toBe("BUDGET_QUEUE_FULL");
    expect(error.message).toMatch(/maxQueue 2/);
    await clock.runAll();
    expect(waiting.every((e) => e.error === undefined)).toBe(true);
  });

  it("close() rejects the waiting with BUDGET_CLOSED, stops the timer and refuses later requests", async () => {
    const { clock, budget } = setup(one);
    await budget.acquire(GET);
    const entry = track(budget, clock);
    await flush();
    budget.close();
    await entry.promise;
    expect((entry.error as PromoReviewError).code).toBe("BUDGET_CLOSED");
    expect(clock.pendingTimers).toBe(0);
    await expect(budget.acquire(GET)).rejects.toMatchObject({ code: "BUDGET_CLOSED" });
  });
});

describe("events and idleness", () => {
  it("emits waiting with what is full and how long at least", async () => {
    const { clock, budget } = setup({ budgets: [{ name: "s", limit: 1, windowMs: 1000, match: {} }] });
    const waiting: unknown[] = [];
    budget.on("waiting", (e) => waiting.push(e));
    await budget.acquire(GET);
    const a = track(budget, clock);
    const b = track(budget, clock, LINK);
    await clock.runAll();
    expect(a.error ?? b.error).toBeUndefined();
    expect(waiting).toEqual([
      { method: "GET", path: "/v1/channels", budgets: ["s"], paused: false, waitMs: 1000, queued: 1 },
      { method: "POST", path: "/v1/links", budgets: [], paused: false, waitMs: 0, queued: 2 },
    ]);
  });

  it("holds no timer when nothing waits, and one per waiting request while some wait", async () => {
    const { clock, budget } = setup();
    for (let i = 0; i < 70; i++) void budget.acquire(GET);
    await flush();
    // 60 admitted, 10 waiting: each waiter's own timer (see "one client per isolate" below).
    expect(clock.pendingTimers).toBe(10);
    await clock.runAll();
    expect(budget.pending).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it("`acquire` and `learn` work detached from the budget", async () => {
    const { budget } = setup();
    const { acquire, learn } = budget;
    await acquire(GET);
    await expect(learn(tooMany({ "Retry-After": "1" }))).resolves.toBe(1000);
  });

  it("uses the system clock by default", async () => {
    const budget = createRateBudget({ baseUrl: BASE });
    await budget.acquire(GET);
    budget.close();
  });
});

/** A store that answers through promises, like Redis, over a memory store; optionally failing. */
class AsyncStore implements BudgetStore {
  readonly inner: MemoryStore;
  fail: Error | undefined;
  calls = 0;
  constructor(clock: ManualClock) {
    this.inner = new MemoryStore({ clock });
  }
  async take(key: string, windows: readonly WindowSpec[]): Promise<Decision> {
    this.calls++;
    await Promise.resolve();
    if (this.fail) throw this.fail;
    return this.inner.take(key, windows);
  }
  async pause(key: string, ms: number): Promise<void> {
    await Promise.resolve();
    if (this.fail) throw this.fail;
    this.inner.pause(key, ms);
  }
  async settle(key: string, windows: readonly WindowSpec[], ticket: string): Promise<void> {
    await Promise.resolve();
    if (this.fail) throw this.fail;
    this.inner.settle(key, windows, ticket);
  }
}

describe("asynchronous stores", () => {
  it("keep the same admissions, order and pauses as the memory store", async () => {
    const clock = new ManualClock(5000);
    const store = new AsyncStore(clock);
    const budget = createRateBudget({
      baseUrl: BASE,
      clock,
      store,
      safetyMarginMs: 0,
      budgets: [
        { name: "shared", limit: 2, windowMs: 1000, match: { pathPrefix: "/v1/" } },
        { name: "links", limit: 1, windowMs: 1000, match: { method: "POST", path: "/v1/links" } },
      ],
    });
    const resumed: unknown[] = [];
    budget.on("resumed", (e) => resumed.push(e));
    const start = clock.now();
    const entries = [
      track(budget, clock, LINK),
      track(budget, clock, LINK),
      track(budget, clock),
      track(budget, clock),
    ];
    await clock.runAll();
    expect(entries.map((e) => e.at! - start)).toEqual([0, 1000, 0, 1000]);
    budget.pauseFor(3000);
    const paused = track(budget, clock);
    await clock.runAll();
    expect(paused.at! - start).toBe(4000);
    expect(resumed).toEqual([{ pausedMs: 3000 }]);
  });

  it("a pause recorded by another process is reported as throttled (source store)", async () => {
    const clock = new ManualClock(0);
    const store = new AsyncStore(clock);
    const budget = createRateBudget({ baseUrl: BASE, clock, store });
    const throttled: unknown[] = [];
    budget.on("throttled", (e) => throttled.push(e));
    store.inner.pause("default", 1500);
    const entry = track(budget, clock);
    await clock.runAll();
    expect(entry.at).toBe(1500);
    expect(throttled).toEqual([{ pauseMs: 1500, source: "store" }]);
  });

  it("a failing store rejects the requests with its error and emits storeError", async () => {
    const clock = new ManualClock(0);
    const store = new AsyncStore(clock);
    store.fail = new Error("store down");
    const budget = createRateBudget({ baseUrl: BASE, clock, store });
    const errors: unknown[] = [];
    budget.on("storeError", (e) => errors.push(e.error));
    await expect(budget.acquire(GET)).rejects.toThrow("store down");
    budget.pauseFor(100);
    await flush();
    expect(errors).toEqual([store.fail, store.fail]);
  });

  it("settle failures are reported as storeError; a store without settle gives tickets that do nothing", async () => {
    const clock = new ManualClock(0);
    const store = new AsyncStore(clock);
    const budget = createRateBudget({ baseUrl: BASE, clock, store });
    const errors: unknown[] = [];
    budget.on("storeError", (e) => errors.push(e.error));
    const ticket = await budget.acquire(GET, { ticket: true });
    store.fail = new Error("gone");
    ticket.settle();
    await flush();
    expect(errors).toEqual([store.fail]);
    const plain: BudgetStore = { take: (k, w) => store.inner.take(k, w), pause: () => {} };
    const other = createRateBudget({ baseUrl: BASE, clock, store: plain });
    (await other.acquire(GET, { ticket: true })).settle();
    const throwing: BudgetStore = {
      synchronous: true,
      take: () => ({ ok: true }),
      pause: () => {},
      settle: () => {
        throw new Error("sync settle");
      },
    };
    const third = createRateBudget({ baseUrl: BASE, store: throwing });
    third.on("storeError", (e) => errors.push(e.error));
    (await third.acquire(GET, { ticket: true })).settle();
    expect(errors.map(String)).toEqual(["Error: gone", "Error: sync settle"]);
  });

  it("a synchronous store that throws rejects at once", async () => {
    const failing: BudgetStore = {
      synchronous: true,
      take: () => {
        throw new Error("broken");
      },
      pause: () => {
        throw new Error("broken pause");
      },
    };
    const budget = createRateBudget({ baseUrl: BASE, store: failing });
    const errors: unknown[] = [];
    budget.on("storeError", (e) => errors.push(e.error));
    await expect(budget.acquire(GET)).rejects.toThrow("broken");
    budget.pauseFor(10);
    expect(errors.map(String)).toEqual(["Error: broken", "Error: broken pause"]);
  });
});
