import { PromoReviewError, RateLimitError, TimeoutError } from "@promo-review/errors";
import { MAX_SERVER_WAIT_MS } from "@promo-review/errors/internal";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type PollCheck, type PollOptions, type PollPause, poll } from "./index.js";
import { jittered, nextInterval } from "./poll.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const notYet = { done: false } as const;

/** Runs a poll to its end under fake timers, recording when each check ran and each pause. */
async function run<T>(
  answers: (attempt: number) => PollCheck<T> | Error,
  options: Omit<PollOptions, "backoff"> & { backoff?: PollOptions["backoff"] },
) {
  const checkedAt: number[] = [];
  const pauses: PollPause[] = [];
  const outcome = poll(
    async (attempt) => {
      checkedAt.push(Date.now());
      const answer = answers(attempt);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    {
      backoff: { initialMs: 100, maxMs: 1000 },
      ...options,
      onPause: (pause) => {
        pauses.push(pause);
        options.onPause?.(pause);
      },
    },
  ).then(
    (value): { value?: T; error?: unknown } => ({ value }),
    (error: unknown): { value?: T; error?: unknown } => ({ error }),
  );
  await vi.runAllTimersAsync();
  return { ...(await outcome), checkedAt, pauses };
}

describe("poll: backoff", () => {
  it("pauses grow by the factor up to the ceiling, and the value of the done check is returned", async () => {
    const result = await run((n) => (n < 7 ? notYet : { done: true, value: `after ${n}` }), {});
    expect(result.value).toBe("after 7");
    expect(result.pauses.map((p) => p.delayMs)).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(result.pauses.every((p) => p.reason === "pending")).toBe(true);
    expect(result.checkedAt).toEqual([0, 100, 300, 700, 1500, 2500, 3500]);
    // What to save to resume the pacing: the interval the next "not yet" pauses for.
    expect(result.pauses.map((p) => p.intervalMs)).toEqual([200, 400, 800, 1000, 1000, 1000]);
  });

  it("jitter: equal stays in [interval / 2, interval), full in [minMs, interval)", async () => {
    const equal = await run((n) => (n < 4 ? notYet : { done: true, value: n }), {
      backoff: { initialMs: 100, maxMs: 1000, jitter: "equal", random: () => 0 },
    });
    expect(equal.pauses.map((p) => p.delayMs)).toEqual([50, 100, 200]);
    const full = await run((n) => (n < 4 ? notYet : { done: true, value: n }), {
      backoff: { initialMs: 100, maxMs: 1000, factor: 3, jitter: "full", minMs: 50, random: () => 0.5 },
    });
    expect(full.pauses.map((p) => p.delayMs)).toEqual([50, 150, 450]);
  });

  it("property: every pause lies in [minMs, interval], and intervals never shrink nor pass maxMs", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.constantFrom("none", "full", "equal") as fc.Arbitrary<"none" | "full" | "equal">,
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        fc.integer({ min: 1, max: 60 }),
        (initialMs, ceiling, factor, jitter, r, steps) => {
          const backoff = { initialMs, maxMs: Math.max(initialMs, ceiling), factor, jitter, random: () => r };
          let interval = initialMs;
          for (let i = 0; i < steps; i++) {
            const pause = jittered(interval, backoff);
            expect(pause).toBeGreaterThanOrEqual(0);
            expect(pause).toBeLessThanOrEqual(interval);
            if (jitter === "equal") expect(pause).toBeGreaterThanOrEqual(Math.floor(interval / 2));
            const next = nextInterval(interval, backoff);
            expect(next).toBeGreaterThanOrEqual(interval);
            expect(next).toBeLessThanOrEqual(backoff.maxMs);
            interval = next;
          }
        },
      ),
    );
  });
});

describe("poll: the deadline", () => {
  it("no pause runs past it, and no check starts at it: a TimeoutError naming the checks", async () => {
    const result = await run(() => notYet, { timeoutMs: 1000, backoff: { initialMs: 300, maxMs: 5000 } });
    expect(result.checkedAt).toEqual([0, 300, 900]);
    expect(result.error).toBeInstanceOf(TimeoutError);
    expect(result.error).toMatchObject({ code: "TIMEOUT", mayHaveReachedServer: true });
    expect((result.error as Error).message).toMatch(/^Still not done after 3 checks and 1000 ms\b/);
    expect(Date.now()).toBe(1000);
  });

  it("checkAtDeadline takes one last look at the deadline, and always checks at least once", async () => {
    const late = await run(() => notYet, {
      timeoutMs: 1000,
      checkAtDeadline: true,
      backoff: { initialMs: 300, maxMs: 5000 },
    });
    expect(late.checkedAt).toEqual([0, 300, 900, 1000]);
    expect(late.error).toBeInstanceOf(TimeoutError);
    const none = await run((n) => (n < 2 ? notYet : { done: true, value: n }), {
      timeoutMs: 0,
      checkAtDeadline: true,
    });
    expect(none.checkedAt).toHaveLength(1);
    expect(none.error).toBeInstanceOf(TimeoutError);
  });

  it("a deadline already past (a resumed poll) ends at once with the caller's error, no check made", async () => {
    const result = await run(() => notYet, {
      deadlineAt: -1,
      timeoutMs: 60_000,
      timeoutError: (attempts) => new Error(`gave up after ${attempts}`),
    });
    expect(result.checkedAt).toEqual([]);
    expect((result.error as Error).message).toBe("gave up after 0");
  });

  it("without a deadline the default error says only the checks", async () => {
    const result = await run(() => notYet, { deadlineAt: 250 });
    expect((result.error as Error).message).toMatch(/^Still not done after 2 checks \[TIMEOUT\]$/);
  });
});

describe("poll: abort", () => {
  it("the signal ends a pause at once with an AbortError, and no check follows", async () => {
    const controller = new AbortController();
    const checked: number[] = [];
    const outcome = poll(
      async () => {
        checked.push(Date.now());
        return notYet;
      },
      { backoff: { initialMs: 10_000, maxMs: 10_000 }, signal: controller.signal },
    ).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5000);
    controller.abort();
    const error = await outcome;
    expect(error).toMatchObject({ code: "ABORTED" });
    expect(checked).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a check failing after the abort is not handed to onError: it goes to the caller", async () => {
    const controller = new AbortController();
    const onError = vi.fn(() => 0);
    const failure = new Error("aborted request");
    const result = await run(
      () => {
        controller.abort();
        return failure;
      },
      { signal: controller.signal, onError },
    );
    expect(result.error).toBe(failure);
    expect(onError).not.toHaveBeenCalled();
  });
});

describe("poll: server-given waits", () => {
  it("a returned retryAfterMs is the pause, and the backoff does not grow meanwhile", async () => {
    const result = await run(
      (n) => (n === 1 ? { done: false, retryAfterMs: 5000 } : n < 4 ? notYet : { done: true, value: n }),
      {},
    );
    expect(result.pauses.map((p) => [p.reason, p.delayMs])).toEqual([
      ["retry-after", 5000],
      ["pending", 100],
      ["pending", 200],
    ]);
  });

  it("a returned wait over MAX_SERVER_WAIT_MS is not honoured: the backoff pause is taken", async () => {
    const result = await run(
      (n) => (n === 1 ? { done: false, retryAfterMs: MAX_SERVER_WAIT_MS + 1 } : { done: true, value: n }),
      {},
    );
    expect(result.pauses.map((p) => [p.reason, p.delayMs])).toEqual([["pending", 100]]);
    expect(result.value).toBe(2);
  });

  it("a thrown error is retried as onError says, never sooner than its retryAfterMs", async () => {
    const throttled = new RateLimitError({ code: "RATE_LIMITED", message: "slow down", retryAfterMs: 2000 });
    const flaky = new PromoReviewError({ code: "UPSTREAM_ERROR", message: "try again" });
    const seen: number[] = [];
    const result = await run((n) => (n === 1 ? throttled : n === 2 ? flaky : { done: true, value: n }), {
      onError: (_error, intervalMs) => {
        seen.push(intervalMs);
        return 300;
      },
    });
    expect(result.value).toBe(3);
    expect(result.pauses.map((p) => [p.reason, p.delayMs, p.error])).toEqual([
      ["error", 2000, throttled],
      ["error", 300, flaky],
    ]);
    // A failed check does not grow the interval.
    expect(seen).toEqual([100, 100]);
  });

  it("a thrown wait over MAX_SERVER_WAIT_MS goes to the caller at once, unslept; so does any error without onError", async () => {
    const throttled = new RateLimitError({
      code: "RATE_LIMITED",
      message: "next week",
      retryAfterMs: MAX_SERVER_WAIT_MS + 1,
    });
    const onError = vi.fn(() => 0);
    const bounded = await run(() => throttled, { onError });
    expect(bounded.error).toBe(throttled);
    expect(onError).not.toHaveBeenCalled();
    expect(Date.now()).toBe(0);
    const plain = await run(() => new Error("boom"), {});
    expect((plain.error as Error).message).toBe("boom");
    expect(plain.checkedAt).toEqual([0]);
  });

  it("onError may throw an error of its own, which ends the poll", async () => {
    const result = await run(() => new Error("raw"), {
      onError: (error) => {
        throw new Error(`explained: ${(error as Error).message}`);
      },
    });
    expect((result.error as Error).message).toBe("explained: raw");
  });
});
