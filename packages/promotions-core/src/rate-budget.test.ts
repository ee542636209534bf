import { createRateBudget } from "@promo-review/rate-budget";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { clientFor, requestsTo, simTextBody } from "../test/support/sim.js";

// The service's 60 per minute, with the minute scaled to two seconds so the test runs in seconds.
const LIMIT = 60;
const WINDOW_MS = 2000;
const CREATIONS = 100;

const sim = useSimulator(startSimulator, { rateLimitWindowMs: WINDOW_MS, mainApiLimit: LIMIT, seed: 9 });

/** The most requests that arrived within any window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j]! - sorted[i]! >= windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

describe("the creation budget is never exceeded when 100 creations are queued at once", () => {
  it("creates all 100 through a rate budget with zero 429s and at most 60 in any window", async () => {
    // The budget admits at send time and the service counts at arrival. Here both share one busy event
    // loop (other suites run beside this one), so sends admitted together can arrive a few hundred ms
    // apart: the budget smooths bursts to 10 and adds a 500 ms safety margin to each window.
    const budget = createRateBudget({
      baseUrl: sim().baseUrl,
      budgets: [
        { name: "shared", limit: LIMIT, windowMs: WINDOW_MS, match: { pathPrefix: "/v1/" }, burst: 10 },
      ],
      safetyMarginMs: 500,
    });
    const promotions = clientFor(sim(), { budget });
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: CREATIONS }, (_, i) =>
        promotions.create(simTextBody(sim(), { promotionName: `Bulk ${i}` })),
      ),
    );
    const elapsedMs = Date.now() - started;
    expect(new Set(results.map((r) => r.promotionId)).size).toBe(CREATIONS);
    const posts = requestsTo(sim(), "POST", "/v1/promotions");
    const tooMany = posts.filter((p) => p.status === 429).length;
    const busiest = busiestWindow(
      posts.map((p) => Date.parse(p.time)),
      WINDOW_MS,
    );
    console.log(
      `100 creations through the budget: ${posts.length} requests, ${tooMany} 429s, ` +
        `busiest ${WINDOW_MS} ms window ${busiest}/${LIMIT}, ${elapsedMs} ms in all`,
    );
    expect(tooMany).toBe(0);
    expect(posts).toHaveLength(CREATIONS);
    expect(busiest).toBeLessThanOrEqual(LIMIT);
  });
});
