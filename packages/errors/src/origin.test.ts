import { describe, expect, it } from "vitest";
import { ForeignOriginError, PromoReviewError, RedirectError } from "./index.js";
import { isOverWaitBound, MAX_SERVER_WAIT_MS, MAX_TIMER_MS } from "./internal.js";

describe("a foreign origin is a typed error naming both origins", () => {
  it("carries FOREIGN_ORIGIN, the origin refused and the one expected, and is never retryable", () => {
    const error = new ForeignOriginError({
      origin: "http://evil.example",
      expectedOrigin: "https://api.example.com",
      message: "Refused GET to http://evil.example",
    });
    expect(error).toBeInstanceOf(PromoReviewError);
    expect(error).toMatchObject({
      code: "FOREIGN_ORIGIN",
      name: "ForeignOriginError",
      origin: "http://evil.example",
      expectedOrigin: "https://api.example.com",
      retryable: false,
    });
    const redirect = new RedirectError({ code: "REDIRECT_REFUSED", message: "not followed", status: 302 });
    expect(redirect).toBeInstanceOf(PromoReviewError);
    expect(redirect).not.toBeInstanceOf(ForeignOriginError);
    expect(redirect.retryable).toBe(false);
  });
});

describe("server-given waits have a bound", () => {
  it("one hour is within it; longer, infinite or not a number is over it", () => {
    expect(MAX_SERVER_WAIT_MS).toBe(3_600_000);
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
    expect(isOverWaitBound(0)).toBe(false);
    expect(isOverWaitBound(MAX_SERVER_WAIT_MS)).toBe(false);
    for (const ms of [MAX_SERVER_WAIT_MS + 1, 2 ** 31, 1e308, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(isOverWaitBound(ms)).toBe(true);
    }
  });
});
