import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RATE_BUDGET_VERSION } from "./version.js";

describe("the instrumentation scope names this package's released version", () => {
  it("RATE_BUDGET_VERSION equals package.json's version", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"));
    expect(RATE_BUDGET_VERSION).toBe(manifest.version);
  });
});
