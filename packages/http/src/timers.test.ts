import { MAX_TIMER_MS } from "@promo-review/errors/internal";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deadlineSignal, setLongTimeout, sleep } from "./index.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("no timer is ever set past 2^31 - 1 ms", () => {
  it("a long delay is kept, made of timers no longer than the maximum; it fires only at its end", () => {
    vi.useFakeTimers();
    const delays: number[] = [];
    const original = globalThis.setTimeout;
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms: number) => {
      delays.push(ms);
      return original(fn, ms);
    }) as typeof setTimeout);
    const fired = vi.fn();
    setLongTimeout(fired, 2 * MAX_TIMER_MS + 5);
    vi.advanceTimersByTime(2 * MAX_TIMER_MS);
    expect(fired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5);
    expect(fired).toHaveBeenCalledOnce();
    expect(delays).toEqual([MAX_TIMER_MS, MAX_TIMER_MS, 5]);
  });

  it("an infinite delay sets no timer; NaN and negative fire at once; cancelling stops a chain", () => {
    vi.useFakeTimers();
    const fired = vi.fn();
    setLongTimeout(fired, Number.POSITIVE_INFINITY);
    expect(vi.getTimerCount()).toBe(0);
    setLongTimeout(fired, Number.NaN);
    setLongTimeout(fired, -5);
    vi.advanceTimersByTime(0);
    expect(fired).toHaveBeenCalledTimes(2);
    const cancel = setLongTimeout(fired, MAX_TIMER_MS + 1);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    cancel();
    vi.advanceTimersByTime(10);
    expect(fired).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("sleep and deadlineSignal with a 1e308 ms wait neither fire early nor warn", async () => {
    vi.useFakeTimers();
    const warning = vi.fn();
    process.on("warning", warning);
    const controller = new AbortController();
    const slept = sleep(1e308, controller.signal);
    const deadline = deadlineSignal(2 ** 31);
    vi.advanceTimersByTime(1000);
    expect(deadline.signal.aborted).toBe(false);
    controller.abort();
    await expect(slept).rejects.toMatchObject({ code: "ABORTED" });
    deadline.clear();
    process.off("warning", warning);
    expect(warning).not.toHaveBeenCalled();
  });
});
