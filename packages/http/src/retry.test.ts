import {
  NetworkError,
  PromoReviewError,
  RateLimitError,
  ServerError,
  ValidationError,
} from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, isSafeToRetry, resolveUrl, retryDelay, sleep } from "./index.js";

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
