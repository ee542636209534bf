/**
 * One budget per isolate: a budget made once at module scope (as Workers are written) serves many
 * requests at once, and in Workers a request may wait only on its own timers and I/O. These tests
 * model that runtime over the manual clock: each request runs in a context of its own, a timer runs in
 * the context that set it, and when a request ends its timers are dropped (workerd cancels them).
 */

import { MemoryStore } from "@promo-review/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { ManualClock } from "../test/support/clock.js";
import { createRateBudget } from "./budget.js";
import type { Clock } from "./clock.js";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";

const BASE = "http://127.0.0.1:1234";
const GET = { method: "GET", url: `${BASE}/v1/channels` };
const LINK = { method: "POST", url: `${BASE}/v1/links` };

/** Request contexts over a manual clock, as workerd keeps them. */
class Contexts implements Clock {
  readonly clock = new ManualClock(1_000_000);
  /** The request whose code runs now (undefined: none, e.g. a timer of no request). */
  current: number | undefined;
  /** Timers or store calls made outside their request's context, described. */
  readonly violations: string[] = [];
  readonly #timers = new Map<number, Set<unknown>>();
  readonly #ended = new Set<number>();

  /** Runs `fn` as request `id`'s code. */
  in<T>(id: number | undefined, fn: () => T): T {
    const previous = this.current;
    this.current = id;
    try {
      return fn();
    } finally {
      this.current = previous;
    }
  }

  /** Request `id` answered: workerd drops whatever timers it still has. */
  end(id: number): void {
    this.#ended.add(id);
    for (const handle of this.#timers.get(id) ?? []) this.clock.clearTimer(handle);
    this.#timers.delete(id);
  }

  now(): number {
    return this.clock.now();
  }

  setTimer(fn: () => void, ms: number): unknown {
    const owner = this.current;
    if (owner === undefined) this.violations.push("a timer set outside every request");
    const handle = this.clock.setTimer(() => {
      this.#timers.get(owner!)?.delete(handle);
      this.in(owner, fn);
    }, ms);
    if (owner !== undefined) {
      if (this.#ended.has(owner)) this.violations.push(`a timer set by request ${owner} after it ended`);
      const set = this.#timers.get(owner) ?? new Set();
      set.add(handle);
      this.#timers.set(owner, set);
    }
    return handle;
  }

  clearTimer(handle: unknown): void {
    this.clock.clearTimer(handle);
  }
}

/**
 * A store that records, for each call, the request whose code made it; the ticket names the waiter
 * (tickets are numbered in acquisition order, from 1). Synchronous over memory, or answering through
 * a promise like Redis or a Durable Object.
 */
function recordingStore(contexts: Contexts, asynchronous: boolean): BudgetStore {
  const inner = new MemoryStore({ clock: contexts });
  const check = (ticket: string | undefined) => {
    const waiter = Number(ticket?.split(":").pop()) - 1;
    if (contexts.current !== waiter) {
      contexts.violations.push(`request ${waiter}'s store call made by request ${contexts.current}`);
    }
  };
  if (!asynchronous) {
    return {
      synchronous: true,
      take: (key, windows, ticket) => {
        check(ticket);
        return inner.take(key, windows, ticket);
      },
      settle: (key, windows, ticket) => inner.settle(key, windows, ticket),
      pause: (key, ms) => inner.pause(key, ms),
    };
  }
  return {
    take: (key: string, windows: readonly WindowSpec[], ticket?: string): Promise<Decision> => {
      check(ticket);
      // The answer comes back to the request that asked, as a runtime resumes a request's own I/O.
      const owner = contexts.current;
      const answer = Promise.resolve().then(() => inner.take(key, windows, ticket));
      return {
        // biome-ignore lint/suspicious/noThenProperty: a thenable that resumes in the asking request
        then: (ok?: (d: Decision) => unknown, fail?: (e: unknown) => unknown) =>
          answer.then(
            (d) => contexts.in(owner, () => ok?.(d)),
            (e: unknown) => contexts.in(owner, () => fail?.(e)),
          ),
      } as Promise<Decision>;
    },
    settle: async (key, windows, ticket) => inner.settle(key, windows, ticket),
    pause: async (key, ms) => inner.pause(key, ms),
  };
}

interface Arrival {
  gap: number;
  link: boolean;
  priority: number;
  maxWaitMs?: number;
}

interface Outcome {
  at?: number;
  /** Position among all admissions (their order, not only their time). */
  seq?: number;
  error?: unknown;
  failedAt?: number;
}

/** Fires `arrivals` at one module-scope budget, each as its own request, and runs the clock out. */
async function run(
  arrivals: Arrival[],
  options: { limit: number; linkLimit: number; asynchronous: boolean },
) {
  const contexts = new Contexts();
  const budget = createRateBudget({
    baseUrl: BASE,
    clock: contexts,
    store: recordingStore(contexts, options.asynchronous),
    safetyMarginMs: 0,
    maxQueue: 10_000,
    budgets: [
      { name: "shared", limit: options.limit, windowMs: 1000, match: { pathPrefix: "/v1/" } },
      {
        name: "links",
        limit: options.linkLimit,
        windowMs: 1000,
        match: { method: "POST", path: "/v1/links" },
      },
    ],
  });
  const outcomes: Outcome[] = [];
  const arrivedAt: number[] = [];
  const admittedBefore: number[] = [];
  const promises: Promise<void>[] = [];
  let admissions = 0;
  let t = contexts.now();
  for (const [id, arrival] of arrivals.entries()) {
    t += arrival.gap;
    await contexts.clock.advanceTo(t);
    const outcome: Outcome = {};
    outcomes.push(outcome);
    arrivedAt.push(contexts.now());
    admittedBefore.push(admissions);
    const acquired = contexts.in(id, () =>
      budget.acquire(arrival.link ? LINK : GET, {
        ticket: true,
        priority: arrival.priority,
        ...(arrival.maxWaitMs === undefined ? {} : { maxWaitMs: arrival.maxWaitMs }),
      }),
    );
    promises.push(
      acquired.then(
        (ticket) =>
          contexts.in(id, () => {
            outcome.at = contexts.now();
            outcome.seq = admissions++;
            // The response came back at once: count the admission from now, then the request ends.
            ticket.settle();
            contexts.end(id);
          }),
        (error: unknown) => {
          outcome.error = error;
          outcome.failedAt = contexts.now();
          contexts.end(id);
        },
      ),
    );
  }
  await contexts.clock.runAll();
  return { outcomes, arrivedAt, admittedBefore, violations: contexts.violations, budget, contexts, promises };
}

const arrivalsArb = fc.array(
  fc.record({
    gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 1500 })),
    link: fc.boolean(),
    priority: fc.integer({ min: -1, max: 1 }),
  }),
  { minLength: 1, maxLength: 40 },
);

/** Arrivals at a budget of `limit` a second with `linkLimit` a second for links, over either store. */
const scenarioArb = fc.record({
  arrivals: arrivalsArb,
  limit: fc.integer({ min: 1, max: 6 }),
  linkLimit: fc.integer({ min: 1, max: 3 }),
  asynchronous: fc.boolean(),
});

describe("every waiter wakes itself: its own timer and its own store call, in its own request", () => {
  it("property: whatever the arrivals, priorities and store, every request is admitted, each by its own timer or store call, even though an answered request's timers are dropped", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ arrivals, limit, linkLimit, asynchronous }) => {
        const { outcomes, violations, contexts } = await run(arrivals, { limit, linkLimit, asynchronous });
        expect(violations).toEqual([]);
        expect(outcomes.filter((o) => o.at === undefined)).toEqual([]);
        expect(contexts.clock.pendingTimers).toBe(0);
      }),
      { numRuns: 80 },
    );
  });
});

describe("the queue still decides who takes first", () => {
  it("property: never more than a budget's limit in any window, and a waiting request is never passed by a later one of the same kind and no higher priority", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ arrivals, limit, linkLimit, asynchronous }) => {
        const { outcomes, arrivedAt, admittedBefore } = await run(arrivals, {
          limit,
          linkLimit,
          asynchronous,
        });
        const times = outcomes.map((o) => o.at!);
        expect(maxInAnyWindow(times, 1000)).toBeLessThanOrEqual(limit);
        expect(
          maxInAnyWindow(
            times.filter((_, i) => arrivals[i]!.link),
            1000,
          ),
        ).toBeLessThanOrEqual(linkLimit);
        for (let b = 0; b < arrivals.length; b++) {
          for (let a = 0; a < b; a++) {
            const [A, B] = [arrivals[a]!, arrivals[b]!];
            // A was still waiting when B arrived: B, of the same kind and no higher priority, is behind it.
            const waiting = outcomes[a]!.seq! >= admittedBefore[b]! && arrivedAt[a]! <= arrivedAt[b]!;
            if (A.link === B.link && A.priority >= B.priority && waiting) {
              expect(outcomes[a]!.seq!, `request ${a} before request ${b}`).toBeLessThan(outcomes[b]!.seq!);
            }
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it("a waiter whose deadline comes while one ahead still holds its window fails then, by its own timer", async () => {
    const { outcomes, violations } = await run(
      [
        { gap: 0, link: false, priority: 0 },
        { gap: 0, link: false, priority: 0 },
        { gap: 100, link: false, priority: 0, maxWaitMs: 500 },
      ],
      { limit: 1, linkLimit: 1, asynchronous: false },
    );
    expect(violations).toEqual([]);
    expect(outcomes.map((o) => o.at)).toEqual([1_000_000, 1_001_000, undefined]);
    expect(outcomes[2]!.error).toMatchObject({ code: "BUDGET_DEADLINE" });
    expect(outcomes[2]!.failedAt).toBe(1_000_600);
  });
});
