/**
 * Every promise, in every runtime, against a simulator on 127.0.0.1: workerd (miniflare), Deno, Bun,
 * headless Chromium (playwright-core), Node CommonJS (`require()` of the ESM packages) and Node ESM.
 * One simulator per runtime, so each runtime's requests stand alone in the simulator's log.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleScenario, type Runtime } from "./harness/bundle.ts";
import {
  CHROMIUM_PATH,
  type ChromiumSession,
  type Outcome,
  runScenario,
  startChromium,
} from "./harness/runners.ts";
import { endpointsOf, startProofSimulator } from "./harness/simulator.ts";

const RUNTIMES: Runtime[] = ["node-esm", "node-cjs", "deno", "bun", "workerd", "chromium"];
const CI = process.env["CI"] === "true";
const chromiumMissing = !existsSync(CHROMIUM_PATH);
if (chromiumMissing && !CI) {
  console.warn(
    `\n!!! runtime-proof: ${CHROMIUM_PATH} is missing: the Chromium scenarios are SKIPPED (apt-get install chromium; with CI=true they fail instead) !!!\n`,
  );
}

function output(outcome: Outcome, runtime: Runtime): Record<string, unknown> {
  if (!outcome.ok)
    throw new Error(`scenario failed in ${runtime}: ${JSON.stringify(outcome.error, null, 2)}`);
  // The scenario reports the runtime it saw, so a runner that silently fell back to Node cannot pass.
  expect(outcome.output["runtime"]).toBe(runtime.startsWith("node") ? "node" : runtime);
  return outcome.output;
}

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

describe.each(RUNTIMES)("%s", (runtime) => {
  let sim: Simulator;
  let browser: ChromiumSession | undefined;
  const skipBrowser = runtime === "chromium" && chromiumMissing && !CI;

  beforeAll(async () => {
    sim = await startProofSimulator();
    if (runtime === "chromium" && !skipBrowser) browser = await startChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await sim?.close();
  });

  const run = (scenario: string, extra: Record<string, unknown> = {}) =>
    runScenario(runtime, scenario, { sim: endpointsOf(sim), ...extra }, browser ? { chromium: browser } : {});

  it("errors + http: an authenticated request, and 404/401/429 mapped to typed errors", async (ctx) => {
    if (skipBrowser) ctx.skip();
    const out = output(await run("smoke"), runtime);
    expect(out["channelIds"]).toEqual(sim.reference.channels.map((c) => c.id));
    expect(out["channelsCorrelationId"]).toBe("proof-channels");
    expect(out["notFound"]).toMatchObject({
      typed: true,
      name: "NotFoundError",
      code: "NOT_FOUND",
      status: 404,
    });
    expect(out["unauthorized"]).toMatchObject({ typed: true, code: "UNAUTHORIZED", status: 401 });
    expect(out["mapped"]).toMatchObject({
      typed: true,
      code: "RATE_LIMITED",
      status: 429,
      retryAfterMs: 3000,
    });
    // The simulator saw the request, authenticated, with the caller's correlation id.
    const seen = sim.control.requests().find((r) => r.correlationId === "proof-channels");
    expect(seen).toMatchObject({ method: "GET", path: "/v1/channels", status: 200 });
    expect(seen?.headers["x-external-user-id"]).toBe(sim.externalUserId);
    const notFound = out["notFound"] as { correlationId: string };
    expect(
      sim.control.requests().some((r) => r.correlationId === notFound.correlationId && r.status === 404),
    ).toBe(true);
  });
});
