/**
 * Every promise, in every runtime that comes from npm, against a simulator on 127.0.0.1: workerd
 * (miniflare), Deno, Bun, Node CommonJS (`require()` of the ESM packages) and Node ESM. Headless
 * Chromium, a system program, runs the same suite in `chromium.test.ts`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bundleScenario, type Runtime } from "./harness/bundle.ts";
import { describeRuntime } from "./harness/runtime-suite.ts";

const RUNTIMES: Runtime[] = ["node-esm", "node-cjs", "deno", "bun", "workerd"];

describe("node-cjs bundles", () => {
  it("load every package with require(), and this Node can require() ES modules", async () => {
    expect(process.features.require_module).toBe(true);
    const file = await bundleScenario("smoke", "node-cjs");
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/require\("@promo-review\/errors"\)/);
    expect(text).toMatch(/require\("@promo-review\/http"\)/);
    expect(text).not.toMatch(/^\s*import\s/m);
  });
});

for (const runtime of RUNTIMES) describeRuntime(runtime);
