import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combineRetryAfter, parseRetryAfter, RateLimitError } from "./index.js";
import { errorFromHttp } from "./internal.js";

const NOW = Date.parse("2026-11-22T10:00:00Z");

describe("Retry-After as delta-seconds", () => {
  it.each([
    ["0", 0],
    ["12", 12_000],
    [" 7 ", 7_000],
    ["1.5", 1_500],
  ])("%j is %d ms", (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });
  it("any whole number of seconds round-trips", () => {
    fc.assert(fc.property(fc.nat({ max: 1_000_000 }), (s) => parseRetryAfter(String(s), NOW) === s * 1000));
  });
});

describe("Retry-After as an HTTP-date", () => {
  it("a future date is the time until it", () => {
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:30 GMT", NOW)).toBe(30_000);
  });
  it("a past date means now", () => {
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", NOW)).toBe(0);
  });
});

describe("an unusable Retry-After is ignored, never guessed", () => {
  it.each([null, undefined, "", "soon", "-5", "12 seconds", "Fri, 99 Foo"])("%j", (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe("combining Retry-After with retry_info: the larger wins", () => {
  it("takes either alone, and the larger of both", () => {
    expect(combineRetryAfter(undefined, undefined)).toBeUndefined();
    expect(combineRetryAfter(2000, undefined)).toBe(2000);
    expect(combineRetryAfter(undefined, 1500)).toBe(1500);
    expect(combineRetryAfter(1000, 1500)).toBe(1500);
    expect(combineRetryAfter(2000, 1500)).toBe(2000);
  });
  it("is applied to a 429 answer", () => {
    const body = JSON.stringify({
      error: {
        code: "RATE_LIMITED",
        message: "Slow down",
        details: [{ type: "retry_info", retryAfterSeconds: 0.25 }],
      },
      correlationId: "c",
    });
    const both = errorFromHttp({ status: 429, body, headers: new Headers({ "retry-after": "1" }) });
    expect(both).toBeInstanceOf(RateLimitError);
    expect(both.retryAfterMs).toBe(1000);
    const infoOnly = errorFromHttp({ status: 429, body, headers: new Headers() });
    expect(infoOnly.retryAfterMs).toBe(250);
    const dated = errorFromHttp(
      { status: 429, body, headers: new Headers({ "retry-after": "Sun, 22 Nov 2026 10:00:05 GMT" }) },
      { now: NOW },
    );
    expect(dated.retryAfterMs).toBe(5000);
    expect(dated.message).toContain("retry after 5.0 s");
  });
});
