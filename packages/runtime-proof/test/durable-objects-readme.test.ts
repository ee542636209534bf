/**
 * The Cloudflare sections of the webhook-verify and rate-budget READMEs, as a user would deploy them:
 * the Worker example and the `wrangler.jsonc` snippet are read from the README, the Worker is bundled
 * and started in workerd (miniflare) with exactly the bindings, class names, migrations and
 * compatibility date of the snippet, and its flow runs against a simulator on 127.0.0.1.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { Miniflare, type WorkerOptions } from "miniflare";
import { afterEach, describe, expect, it } from "vitest";
import { readmeExamples } from "../../../testing/readme-examples.ts";
import { bundleWorker, OUT_DIR, PACKAGE_DIR } from "./harness/bundle.ts";
import { captureDelivery } from "./harness/deliveries.ts";

/** The parts of a wrangler configuration the snippets use. */
interface WranglerConfig {
  name: string;
  main: string;
  compatibility_date: string;
  vars?: Record<string, string>;
  durable_objects: { bindings: { name: string; class_name: string }[] };
  migrations: { tag: string; new_classes?: string[]; new_sqlite_classes?: string[] }[];
}

/** The README's Worker example (the `ts` block exporting a Worker) and its `jsonc` wrangler snippet. */
function cloudflareSection(pkg: string): { worker: string; config: WranglerConfig } {
  const path = join(PACKAGE_DIR, "..", pkg, "README.md");
  const worker = readmeExamples(path).find(
    (e) => e.code.includes("export default {") && e.code.includes("/cloudflare"),
  );
  const jsonc = /```jsonc\n([\s\S]*?)\n```/.exec(readFileSync(path, "utf8"))?.[1];
  if (worker === undefined || jsonc === undefined)
    throw new Error(`${pkg}/README.md: no Worker example or jsonc`);
  // The snippets use whole-line comments only (JSONC allows them; JSON.parse does not).
  const json = jsonc
    .split("\n")
    .filter((line) => !/^\s*\/\//.test(line))
    .join("\n");
  return { worker: worker.code, config: JSON.parse(json) as WranglerConfig };
}

/** Miniflare options from the wrangler configuration, as wrangler would deploy it. */
async function workerFromReadme(pkg: string, bindings: Record<string, string>): Promise<WorkerOptions> {
  const { worker, config } = cloudflareSection(pkg);
  mkdirSync(OUT_DIR, { recursive: true });
  const entry = join(OUT_DIR, `readme-${pkg}.ts`);
  writeFileSync(entry, worker);
  const sqlite = new Set(config.migrations.flatMap((m) => m.new_sqlite_classes ?? []));
  const migrated = new Set([...sqlite, ...config.migrations.flatMap((m) => m.new_classes ?? [])]);
  const durableObjects: NonNullable<WorkerOptions["durableObjects"]> = {};
  for (const binding of config.durable_objects.bindings) {
    // wrangler refuses a bound class that no migration created.
    expect(migrated, `${binding.class_name} needs a migration`).toContain(binding.class_name);
    durableObjects[binding.name] = {
      className: binding.class_name,
      useSQLite: sqlite.has(binding.class_name),
    };
  }
  expect(config.main).toMatch(/\.ts$/);
  return {
    name: config.name,
    modules: true,
    scriptPath: await bundleWorker(entry, `readme-${pkg}`),
    compatibilityDate: config.compatibility_date,
    durableObjects,
    bindings: { ...config.vars, ...bindings },
  };
}

let mf: Miniflare | undefined;
let sim: Simulator | undefined;
afterEach(async () => {
  await mf?.dispose();
  await sim?.close();
  mf = undefined;
  sim = undefined;
});

describe("webhook-verify README: the Durable Object replay store as configured there", () => {
  it("accepts a simulator delivery once; its copy is answered as a duplicate", async () => {
    sim = await startSimulator({});
    const delivery = await captureDelivery(sim);
    mf = new Miniflare(
      await workerFromReadme("webhook-verify", { PROMO_REVIEW_WEBHOOK_SECRET: sim.webhookSecret }),
    );
    const send = async () => {
      const response = await mf!.dispatchFetch("http://proof.invalid/webhooks", {
        method: "POST",
        headers: delivery.headers,
        body: Buffer.from(delivery.bodyBase64, "base64"),
      });
      return { status: response.status, body: await response.json() };
    };
    expect(await send()).toEqual({ status: 200, body: { received: true } });
    expect(await send()).toEqual({ status: 200, body: { received: true, duplicate: true } });
  });
});

describe("rate-budget README: the Durable Object budget store as configured there", () => {
  it("calls the service through the key's object; a 429 pauses the next request's fresh budget", async () => {
    sim = await startSimulator({});
    mf = new Miniflare(
      await workerFromReadme("rate-budget", {
        PROMO_REVIEW_BASE_URL: sim.baseUrl,
        PROMO_REVIEW_API_KEY: sim.apiKey,
        PROMO_REVIEW_USER_ID: sim.externalUserId,
      }),
    );
    const call = async () => (await mf!.dispatchFetch("http://proof.invalid/")).status;
    expect([await call(), await call()]).toEqual([200, 200]);
    sim.control.addFault({ route: "GET /v1/channels", kind: "rate-limit", retryAfterSeconds: 1, count: 1 });
    expect(await call()).toBe(429);
    // Each request makes its own budget: only the object knows of the pause.
    expect(await call()).toBe(200);
    const log = sim.control.requests().filter((r) => r.path === "/v1/channels");
    expect(log.map((r) => r.status)).toEqual([200, 200, 429, 200]);
    const [throttled, next] = log.slice(2).map((r) => Date.parse(r.time));
    expect(next! - throttled!).toBeGreaterThanOrEqual(950);
  });
});
