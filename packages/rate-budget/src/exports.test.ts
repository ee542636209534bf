import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as entry from "./index.js";

describe("the entry exports what the README documents, one entry point per job", () => {
  it("exports exactly the runtime names of the README's export table", () => {
    expect(Object.keys(entry).sort()).toEqual([
      "BUDGET_CODES",
      "MemoryStore",
      "RateBudget",
      "SlidingWindowLog",
      "budgetedFetch",
      "createRateBudget",
      "defaultBudgets",
      "keyIdOf",
      "kyHooks",
      "systemClock",
    ]);
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const table = readme.slice(readme.indexOf("## Everything the entry exports"));
    for (const name of Object.keys(entry)) expect(table).toContain(`\`${name}`);
  });

  it("has no second way to do a budget's jobs", () => {
    const budget = entry.createRateBudget({ baseUrl: "http://127.0.0.1:1" });
    for (const removed of ["acquireTicket", "learnFrom", "onThrottled", "maxThrottleRetries", "kyHooks"]) {
      expect(removed in budget).toBe(false);
    }
    budget.close();
  });
});
