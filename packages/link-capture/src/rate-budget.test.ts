import { createRateBudget } from "@promo-review/rate-budget";
import { startSimulator } from "@promo-review/simulator";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { linksFor, requestsTo } from "../test/support/sim.js";

// The link sub-budget (10 per minute), scaled to 3 per second so the test runs in seconds.
const LINK_LIMIT = 3;
const WINDOW_MS = 1000;

const sim = useSimulator(startSimulator, {
  rateLimitWindowMs: WINDOW_MS,
  linkCaptureLimit: LINK_LIMIT,
  seed: 12,
});

describe("the link-capture sub-budget applies to captures", () => {
  it("spreads 8 captures queued at once so that no window holds more than the sub-budget", async () => {
    const budget = createRateBudget({
      baseUrl: sim().baseUrl,
      budgets: [
        { name: "shared", limit: 60, windowMs: WINDOW_MS, match: { pathPrefix: "/v1/" } },
        {
          name: "links",
          limit: LINK_LIMIT,
          windowMs: WINDOW_MS,
          match: { method: "POST", path: "/v1/links" },
        },
      ],
      // Admission is at send time, counting at arrival: a margin covers the gap on a busy event loop.
      safetyMarginMs: 300,
    });
    const links = linksFor(sim(), { budget });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => links.capture(`https://example.com/p/${i}`)),
    );
    expect(results.every((r) => r.fileFormat === "image")).toBe(true);
    const posts = requestsTo(sim(), "POST", "/v1/links");
    expect(posts.filter((p) => p.status === 429)).toHaveLength(0);
    const times = posts.map((p) => Date.parse(p.time)).sort((a, b) => a - b);
    for (let i = LINK_LIMIT; i < times.length; i++)
      expect(times[i]! - times[i - LINK_LIMIT]!).toBeGreaterThanOrEqual(WINDOW_MS);
  });
});
