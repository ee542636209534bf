import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { SlidingWindowLog } from "./sliding-window.js";

describe("sliding-window log: never more than the limit in any window", () => {
  it("admits `limit` at once, then nothing until the oldest leaves the window", () => {
    const log = new SlidingWindowLog(3, 1000);
    expect([0, 0, 0, 0].map((t) => log.tryTake(t))).toEqual([true, true, true, false]);
    expect(log.waitMs(999)).toBe(1);
    expect(log.tryTake(999)).toBe(false);
    expect(log.tryTake(1000)).toBe(true);
    expect(log.count(1000)).toBe(1);
  });

  it("has no 2x at the window edge (a fixed window would admit 2 * limit around t = windowMs)", () => {
    const log = new SlidingWindowLog(10, 1000);
    const admitted: number[] = [];
    for (let t = 0; t < 3000; t += 1) {
      // A late burst just before the edge of a fixed window, then a burst just after it.
      if ((t >= 990 && t < 1000) || (t >= 1000 && t < 1010) || t % 97 === 0) {
        if (log.tryTake(t)) admitted.push(t);
      }
    }
    expect(maxInAnyWindow(admitted, 1000)).toBeLessThanOrEqual(10);
  });

  it("grows its buffer past the initial capacity and keeps order", () => {
    const log = new SlidingWindowLog(100, 1000);
    for (let i = 0; i < 100; i++) expect(log.tryTake(i)).toBe(true);
    expect(log.tryTake(100)).toBe(false);
    expect(log.waitMs(100)).toBe(900);
    expect(log.tryTake(1000)).toBe(true);
    expect(log.tryTake(1000)).toBe(false);
    expect(log.tryTake(1001)).toBe(true);
  });

  it("refuses a non-positive or fractional limit and a bad window", () => {
    expect(() => new SlidingWindowLog(0, 1000)).toThrow(RangeError);
    expect(() => new SlidingWindowLog(1.5, 1000)).toThrow(RangeError);
    expect(() => new SlidingWindowLog(1, 0)).toThrow(RangeError);
    expect(() => new SlidingWindowLog(1, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it("refuses to record past the limit", () => {
    const log = new SlidingWindowLog(1, 1000);
    log.record(0);
    expect(() => log.record(0)).toThrow(RangeError);
  });

  it("property: over any arrival pattern, at most `limit` in any window, and every refusal is justified", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 400 }),
        (limit, windowMs, gaps) => {
          const log = new SlidingWindowLog(limit, windowMs);
          const admitted: number[] = [];
          let t = 0;
          for (const gap of gaps) {
            t += gap;
            if (log.tryTake(t)) admitted.push(t);
            else {
              // Full use: a refusal means `limit` admissions really lie in (t - windowMs, t].
              expect(admitted.filter((a) => a > t - windowMs).length).toBe(limit);
            }
          }
          expect(maxInAnyWindow(admitted, windowMs)).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});
