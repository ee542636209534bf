import { defaultBudgets } from "@promo-review/rate-budget";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import "../../../../testing/fast-check-seed.ts";
import { describePlan, planBatch } from "./plan.js";

const totals = { items: 300, files: 250, links: 50, submits: 300, evaluations: 200 };

describe("the plan counts what each budget really spends", () => {
  it("charges every main-API request to the shared budget, and captures to the links budget too", () => {
    const plan = planBatch(totals);
    expect(plan.requests.map((r) => [r.operation, r.count, r.budgets])).toEqual([
      ["uploads.initiate", 250, []],
      ["links.capture", 50, ["shared", "links"]],
      ["promotions.create", 300, ["shared"]],
      ["promotions.submit", 300, ["shared"]],
      ["promotions.evaluate", 200, ["shared"]],
    ]);
    expect(plan.budgets.map((b) => [b.name, b.requests])).toEqual([
      ["shared", 850],
      ["links", 50],
    ]);
  });

  it("counts against the budgets given, with the budget's own matching", () => {
    const plan = planBatch(totals, {
      budgets: [
        { name: "creations", limit: 10, windowMs: 1000, match: { method: "post", path: "/v1/promotions" } },
      ],
    });
    expect(plan.budgets).toEqual([
      { name: "creations", limit: 10, windowMs: 1000, requests: 300, leastMs: 29_000 },
    ]);
  });

  it("leaves out the kinds of request a batch does not send", () => {
    const plan = planBatch({ items: 2, files: 0, links: 0, submits: 0, evaluations: 0 });
    expect(plan.requests.map((r) => r.operation)).toEqual(["promotions.create"]);
    expect(plan.leastMs).toBe(0);
  });
});

describe("the least time: a budget's limit at once, then its limit per window", () => {
  it("is the busiest budget's, for any batch", () => {
    fc.assert(
      fc.property(
        fc.record({
          items: fc.nat(2000),
          files: fc.nat(2000),
          links: fc.nat(500),
          submits: fc.nat(2000),
          evaluations: fc.nat(2000),
        }),
        (any) => {
          const plan = planBatch(any);
          const shared = any.items + any.links + any.submits + any.evaluations;
          const least = (n: number, limit: number) => (n === 0 ? 0 : Math.floor((n - 1) / limit) * 60_000);
          expect(plan.leastMs).toBe(Math.max(least(shared, 60), least(any.links, 10)));
          // Never less than the requests at the limit need, never a window more.
          for (const budget of plan.budgets) {
            expect(budget.leastMs).toBeGreaterThanOrEqual(
              ((budget.requests - budget.limit) / budget.limit) * budget.windowMs,
            );
            expect(budget.leastMs).toBeLessThan((budget.requests / budget.limit) * budget.windowMs + 1);
          }
        },
      ),
    );
  });

  it("says it in words", () => {
    expect(describePlan(planBatch(totals))).toEqual([
      "300 items",
      "  250 x uploads.initiate (no budget)",
      "  50 x links.capture (shared + links)",
      "  300 x promotions.create (shared)",
      "  300 x promotions.submit (shared)",
      "  200 x promotions.evaluate (shared)",
      "  budget shared: 850 requests at 60 per 60 s, 14.0 min",
      "  budget links: 50 requests at 10 per 60 s, 4.0 min",
      "  least time: 14.0 min",
    ]);
    expect(defaultBudgets().map((b) => b.name)).toEqual(["shared", "links"]);
  });
});
