import {
  NetworkError,
  PromoReviewError,
  RateLimitError,
  ServerError,
  ValidationError,
} from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, isSafeToRetry, resolveUrl, retryDelay, retrying, sleep } from "./index.js";

describe("backoff: exponential with full jitter, Retry-After taken as said", () => {
  it("stays within [0, min(max, base * 2^(n-1))]", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        (n, r) => {
          const policy = { ...DEFAULT_RETRY, random: () => r };
          const delay = retryDelay(undefined, n, policy);
          return delay >= 0 && delay <= Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
        },
      ),
    );
  });
  it("uses the server's Retry-After unclamped", () => {
    const error = new RateLimitError({ code: "RATE_LIMITED", message: "m", retryAfterMs: 120_000 });
    expect(retryDelay(error, 1, DEFAULT_RETRY)).toBe(120_000);
  });
});

describe("what is safe to retry", () => {
  const network = (mayHaveReachedServer: boolean) =>
    new NetworkError({ code: "NETWORK_ERROR", message: "m", mayHaveReachedServer });
  it.each([
    ["429, POST", new RateLimitError({ code: "RATE_LIMITED", message: "m" }), false, true],
    ["5xx, GET", new ServerError({ code: "INTERNAL_ERROR", message: "m" }), true, true],
    ["5xx, POST", new ServerError({ code: "INTERNAL_ERROR", message: "m" }), false, false],
    ["network not sent, POST", network(false), false, true],
    ["network maybe sent, POST", network(true), false, false],
    ["network maybe sent, GET", network(true), true, true],
    ["validation", new ValidationError({ code: "VALIDATION_ERROR", message: "m" }), true, false],
    ["unknown", new PromoReviewError({ code: "X", message: "m" }), true, false],
  ])("%s", (_label, error, idempotent, expected) => {
    expect(isSafeToRetry(error, idempotent, DEFAULT_RETRY)).toBe(expected);
  });
});

describe("one retry loop: attempts until the predicate refuses, waits by the same rules", () => {
  const throttled = (ms: number) =>
    new RateLimitError({ code: "RATE_LIMITED", message: "m", retryAfterMs: ms });
  it("retries what the predicate accepts, waiting the server's Retry-After, and resolves with the first success", async () => {
    const told: [number, number][] = [];
    const result = await retrying(
      async (attempt) => {
        if (attempt < 3) throw throttled(attempt);
        return `done at ${attempt}`;
      },
      {
        shouldRetry: (error) => error instanceof RateLimitError,
        onRetry: (_e, n, ms) => void told.push([n, ms]),
      },
    );
    expect(result).toBe("done at 3");
    expect(told).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });
  it("ends with the very error the predicate refused; backoff follows the policy, a custom wait may replace it", async () => {
    const last = new ServerError({ code: "INTERNAL_ERROR", message: "m" });
    const waits: number[] = [];
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 8, random: () => 0.5 };
    const failing = retrying(
      async () => {
        throw last;
      },
      {
        shouldRetry: (_error, attempt) => attempt <= 2,
        policy,
        wait: async (ms) => void waits.push(ms),
      },
    );
    await expect(failing).rejects.toBe(last);
    expect(waits).toEqual([4, 8]);
    const fixed = retrying(
      async (attempt) => {
        if (attempt === 1) throw last;
        return attempt;
      },
      { shouldRetry: () => true, delayMs: () => 0 },
    );
    await expect(fixed).resolves.toBe(2);
  });
  it("an abort during the wait ends the loop with an AbortError", async () => {
    const controller = new AbortController();
    const looping = retrying(
      async () => {
        controller.abort();
        throw throttled(60_000);
      },
      { shouldRetry: () => true, signal: controller.signal },
    );
    await expect(looping).rejects.toMatchObject({ code: "ABORTED" });
  });
});

describe("sleep honours AbortSignal", () => {
  it("rejects at once when already aborted", async () => {
    await expect(sleep(10_000, AbortSignal.abort())).rejects.toMatchObject({ code: "ABORTED" });
  });
  it("resolves after the wait", async () => {
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
  });
});

describe("URLs resolve against the base, queries byte for byte", () => {
  it.each([
    ["http://h:1", "/v1/x", "http://h:1/v1/x"],
    ["http://h:1/api/", "/v1/x", "http://h:1/api/v1/x"],
    ["http://h:1", "v1/x", "http://h:1/v1/x"],
    [
      "http://h:1",
      "/v1/links/imports/u?source=drive&sig=a%2Bb%2F%3D",
      "http://h:1/v1/links/imports/u?source=drive&sig=a%2Bb%2F%3D",
    ],
    ["http://h:1", "https://other.test/s?x=%2B", "https://other.test/s?x=%2B"],
  ])("%s + %s", (base, path, expected) => {
    expect(resolveUrl(base, path)).toBe(expected);
  });
});
