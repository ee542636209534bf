/**
 * Issue 32: `createClient({ store })` shares the whole client (the budget, the webhook claims and the
 * upload resume points) on each edge backend, shown where each one runs: Upstash from two Node
 * processes and from two Vercel Edge runtime sandboxes, Durable Objects from two Workers (two
 * isolates) on one `PromoReviewState` namespace, Deno KV from separate deno processes on one KV file.
 * Each step runs somewhere with memory of its own (scenarios/client-steps.ts), so what one step sees of
 * another it saw through the store. Redis and Redis Cluster: packages/sdk/test/shared-store.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { sign } from "@promo-review/webhook-verify";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kvFolder, runDeno } from "../../../testing/deno.ts";
import { redisAvailable } from "../../../testing/redis-server.ts";
import { useUpstashRest } from "../../../testing/upstash-rest.ts";
import type { ClientStep } from "../scenarios/client-steps.ts";
import type { SimulatorEndpoints } from "../scenarios/types.ts";
import { bundleScenario, bundleWorker, PACKAGE_DIR, type Runtime } from "./harness/bundle.ts";
import { runBundle } from "./harness/runners.ts";
import { output } from "./harness/runtime-suite.ts";
import { endpointsOf } from "./harness/simulator.ts";

const CHUNK = 256 * 1024;
const FILE_SIZE = 4 * CHUNK;

/** Runs one step in a process (or isolate) of its own; `where` picks which of two, for backends that have two. */
type InProcess = (step: ClientStep, prefix: string, where: 0 | 1) => Promise<Record<string, unknown>>;

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 5 });
});
afterAll(async () => {
  await sim?.close();
});

let seq = 0;
const prefixOf = () => `proof-${process.pid}-${++seq}:`;

/** The three shared things, as rules every backend's client must keep. */
function sharesTheWholeClient(inProcess: () => InProcess): void {
  it("the budget: what one process spent, another cannot spend", async () => {
    const run = inProcess();
    const prefix = prefixOf();
    const spent = await run({ step: "spend" }, prefix, 0);
    expect(spent["admitted"]).toBeGreaterThan(0);
    expect(spent["admitted"]).toBeLessThanOrEqual(60);
    expect(await run({ step: "try" }, prefix, 1)).toMatchObject({ refused: true, code: spent["code"] });
    // Another prefix (another deployment's names) has a budget of its own.
    expect(await run({ step: "try" }, prefixOf(), 1)).toMatchObject({ refused: false });
  });

  it("the webhook claims: one delivery is accepted once, whichever process receives it", async () => {
    const run = inProcess();
    const prefix = prefixOf();
    const body = JSON.stringify({ type: "evaluation.completed", data: {} });
    const headers = await sign({ webhookSecret: sim.webhookSecret, body });
    const delivery = { method: "POST", headers: { ...headers, "content-type": "application/json" }, body };
    const step: ClientStep = { step: "verify", url: "http://127.0.0.1/webhooks", delivery };
    expect((await run(step, prefix, 0))["outcome"]).toBe("accepted");
    expect(await run(step, prefix, 1)).toMatchObject({ outcome: "replayed" });
  });

  it("the resume points: an upload one process left half-way, another resumes from the service's offset", async () => {
    const run = inProcess();
    const prefix = prefixOf();
    const part = await run({ step: "upload-part", fileSize: FILE_SIZE, stopAt: 2 * CHUNK }, prefix, 0);
    expect(part["uploadId"]).toEqual(expect.any(String));
    const done = await run({ step: "upload", fileSize: FILE_SIZE }, prefix, 1);
    expect(done["uploadId"]).toBe(part["uploadId"]);
    expect(done["resumedFrom"]).toBeGreaterThanOrEqual(2 * CHUNK);
    // The service saw no byte of that upload sent again from the start.
    const puts = sim.control
      .requests()
      .filter((r) => r.method === "PUT" && r.path.endsWith(`/${String(part["uploadId"])}`));
    expect(puts.filter((r) => /^bytes 0-/.test(r.headers["content-range"] ?? ""))).toHaveLength(1);
  });
}

describe.runIf(redisAvailable("runtime-proof createClient on Upstash"))(
  "createClient({ store: upstashStore(redis) }) shares the whole client",
  () => {
    const upstash = useUpstashRest();
    for (const runtime of ["node-esm", "edge-runtime"] as Runtime[]) {
      describe(`${runtime}: each step in a process of its own`, () => {
        let file: string;
        beforeAll(async () => {
          file = await bundleScenario("facade-upstash", runtime);
        });
        sharesTheWholeClient(() => async (step, prefix) => {
          const rest = upstash.rest();
          const input = {
            sim: endpointsOf(sim),
            upstash: { url: rest.url, token: rest.token, prefix },
            step,
          };
          return output(await runBundle(runtime, file, input, { timeoutMs: 90_000 }), runtime);
        });
      });
    }
  },
);

describe("createClient({ store: durableObjectStore(namespace) }) shares the whole client: two Workers, two isolates, one PromoReviewState", () => {
  let mf: Miniflare;
  let persistDir: string;
  const workers: ((body: unknown) => Promise<Record<string, unknown>>)[] = [];
  beforeAll(async () => {
    const script = await bundleWorker(`${PACKAGE_DIR}/workers/facade-store.ts`, "facade-store");
    persistDir = mkdtempSync(join(tmpdir(), "proof-facade-store-"));
    const worker = (name: string, scriptName?: string) => ({
      name,
      modules: true,
      scriptPath: script,
      compatibilityDate: "2025-09-01",
      durableObjects: {
        STATE: { className: "PromoReviewState", useSQLite: true, ...(scriptName ? { scriptName } : {}) },
      },
    });
    mf = new Miniflare({
      durableObjectsPersist: persistDir,
      workers: [worker("owner"), worker("other", "owner")],
    });
    for (const name of ["owner", "other"]) {
      const fetcher = (await mf.getWorker(name)) as unknown as {
        fetch(
          url: string,
          init: { method: string; body: string },
        ): Promise<{ status: number; text(): Promise<string> }>;
      };
      workers.push(async (body) => {
        const response = await fetcher.fetch("http://proof.invalid/", {
          method: "POST",
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.status !== 200)
          throw new Error(`Worker ${name} answered ${response.status}: ${text.slice(0, 2000)}`);
        return JSON.parse(text) as Record<string, unknown>;
      });
    }
  }, 60_000);
  afterAll(async () => {
    await mf?.dispose();
    if (persistDir) rmSync(persistDir, { recursive: true, force: true });
  });

  it("the two Workers are two isolates (each keeps its own memory)", async () => {
    const sims = endpointsOf(sim);
    const [a, b] = await Promise.all(
      workers.map((w) => w({ sim: sims, step: { step: "isolate" }, prefix: "" })),
    );
    expect(a!["isolate"]).toEqual(expect.any(String));
    expect(a!["isolate"]).not.toBe(b!["isolate"]);
  });

  sharesTheWholeClient(() => async (step, prefix, where) => {
    const answer = await workers[where]!({ sim: endpointsOf(sim), step, prefix });
    expect(answer["runtime"]).toBe("workerd");
    return answer;
  });
});

describe("createClient({ store: denoKvStore(kv) }) shares the whole client: separate deno processes on one KV file", () => {
  const folder = kvFolder();
  afterAll(() => folder.remove());
  sharesTheWholeClient(() => {
    // One KV file per test: a fresh store, so one test's spent budget is not the next one's. The
    // budget test's "another deployment" is another file.
    const files = new Map<string, string>();
    return async (step, prefix) => {
      if (!files.has(prefix)) files.set(prefix, folder.file(prefix.replace(/\W/g, "-")));
      const input: { sim: SimulatorEndpoints; step: ClientStep } = { sim: endpointsOf(sim), step };
      const answer = (await runDeno({
        packageDir: PACKAGE_DIR,
        script: "deno/facade.ts",
        args: [files.get(prefix)!, JSON.stringify(input)],
        dir: folder.dir,
        timeoutMs: 90_000,
      })) as Record<string, unknown>;
      expect(answer["runtime"]).toBe("deno");
      return answer;
    };
  });
});
