import { MAX_SERVER_WAIT_MS, MAX_TIMER_MS } from "@promo-review/errors/internal";
import { describe, expect, it } from "vitest";
import { HUGE_WAITS, hugeWait, json, useHostileServers } from "../../../testing/hostile-server.ts";
import { ManualClock } from "../test/support/clock.js";
import { createRateBudget } from "./budget.js";
import { budgetedFetch } from "./fetch.js";

const start = useHostileServers();

describe("a server-given wait over the bound never pauses the budget", () => {
  for (const wait of HUGE_WAITS) {
    it(`${wait.name}: the 429 comes back at once, is not resent, and the next call is not held`, async () => {
      const server = await start();
      server.on(/.*/, hugeWait(wait));
      const budget = createRateBudget({ baseUrl: server.url, onThrottled: "retry" });
      const paused: number[] = [];
      budget.on("throttled", ({ pauseMs }) => paused.push(pauseMs));
      const send = budgetedFetch(budget);
      const first = await send(`${server.url}/v1/channels`);
      expect(first.status).toBe(429);
      expect(server.requests).toHaveLength(1);
      server.on(/.*/, json(200, { channels: [] }));
      expect((await send(`${server.url}/v1/channels`)).status).toBe(200);
      expect(paused).toEqual([]);
      budget.close();
    });
  }

  it("a wait within the bound still pauses the budget for exactly that long", async () => {
    const budget = createRateBudget({ baseUrl: "http://127.0.0.1:1", clock: new ManualClock() });
    const response = new Response("{}", {
      status: 429,
      headers: { "retry-after": String(MAX_SERVER_WAIT_MS / 1000) },
    });
    expect(await budget.learn(response)).toBe(MAX_SERVER_WAIT_MS);
    budget.close();
  });
});

describe("no timer is set past 2^31 - 1 ms", () => {
  it("a pause longer than a timer's maximum re-arms a few times and admits at its end, never in a 1 ms loop", async () => {
    const clock = new ManualClock(0);
    const delays: number[] = [];
    const counting = Object.assign(Object.create(clock) as ManualClock, {
      setTimer: (fn: () => void, ms: number) => {
        delays.push(ms);
        return clock.setTimer(fn, ms);
      },
      now: () => clock.now(),
      clearTimer: (handle: unknown) => clock.clearTimer(handle),
    });
    const budget = createRateBudget({ baseUrl: "http://127.0.0.1:1", clock: counting, safetyMarginMs: 0 });
    const pauseMs = 2 * MAX_TIMER_MS + 1000;
    budget.pauseFor(pauseMs);
    let admittedAt: number | undefined;
    const admitted = budget.acquire({ method: "GET", url: "http://127.0.0.1:1/v1/channels" }).then(() => {
      admittedAt = clock.now();
    });
    await clock.advance(MAX_TIMER_MS);
    expect(admittedAt).toBeUndefined();
    await clock.advance(MAX_TIMER_MS + 1000);
    await admitted;
    expect(admittedAt).toBe(pauseMs);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX_TIMER_MS);
    expect(delays.length).toBeLessThan(10);
    budget.close();
  });
});
