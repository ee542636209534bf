/**
 * `createClient({ store: redisStore(client) })` shares the budget, the webhook claims and the upload
 * resume points across processes: each step below runs in a process of its own (the built sdk), and
 * what one process did is seen by the next through Redis alone. The same rules run on one Redis and
 * on a three-master Redis Cluster (ioredis `Cluster`), where the three kinds of keys spread over
 * every master.
 */
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { sign } from "@promo-review/webhook-verify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWithDeadline } from "../../../testing/child-process.ts";
import { redisClusterAvailable, startRedisCluster } from "../../../testing/redis-cluster.ts";
import { redisAvailable, startRedis } from "../../../testing/redis-server.ts";

const SCRIPT = join(import.meta.dirname, "support", "store-process.mjs");
const CHUNK = 256 * 1024;
/** How long a three-master cluster may take to form on a loaded machine. */
const CLUSTER_FORM_MS = 60_000;

/** A backend the processes share: how each process connects to it, and how the suite stops it. */
interface RunningBackend {
  connection: Record<string, unknown>;
  stop(): Promise<void>;
}

/** The Redis deployments `redisStore` serves: one server, and a cluster. */
const backends = [
  {
    name: "Redis",
    available: () => redisAvailable("sdk shared store (Redis)"),
    start: async (): Promise<RunningBackend> => {
      const redis = await startRedis();
      return { connection: { redisPort: redis.port }, stop: () => redis.stop() };
    },
  },
  {
    name: "Redis Cluster",
    available: () => redisClusterAvailable("sdk shared store (Redis Cluster)"),
    start: async (): Promise<RunningBackend> => {
      const cluster = await startRedisCluster();
      return { connection: { cluster: cluster.startup }, stop: () => cluster.stop() };
    },
  },
];

describe.each(backends)("one store shares the whole client across processes ($name)", (backend) => {
  describe.runIf(backend.available())(`redisStore on ${backend.name}`, () => {
    let store: RunningBackend | undefined;
    let sim: Simulator;
    let seq = 0;

    beforeAll(async () => {
      store = await backend.start();
      sim = await startSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 5 });
    }, CLUSTER_FORM_MS);
    afterAll(async () => {
      await sim?.close();
      await store?.stop();
    });

    /** Runs one step in a new process on the shared Redis, with this test's key prefixes. */
    async function inProcess(
      step: Record<string, unknown>,
      prefixes: Record<string, string>,
    ): Promise<Record<string, unknown>> {
      const input = {
        ...store!.connection,
        apiKey: sim.apiKey,
        externalUserId: sim.externalUserId,
        baseUrl: sim.baseUrl,
        filesUrl: sim.filesUrl,
        webhookSecret: sim.webhookSecret,
        fileSize: 4 * CHUNK,
        prefixes,
        ...step,
      };
      const result = await runWithDeadline(process.execPath, [SCRIPT, JSON.stringify(input)], {
        cwd: join(import.meta.dirname, ".."),
        timeoutMs: 30_000,
      });
      if (result.code !== 0)
        throw new Error(`step ${String(step["step"])} failed: ${result.stderr.slice(-2000)}`);
      return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    }

    const prefixesOf = () => {
      const p = `test-${process.pid}-${++seq}:`;
      return { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` };
    };

    it("the budget: what one process spent, another cannot spend", async () => {
      const prefixes = prefixesOf();
      const spent = await inProcess({ step: "spend" }, prefixes);
      expect(spent["admitted"]).toBeGreaterThan(0);
      expect(spent["admitted"]).toBeLessThanOrEqual(60);
      expect(await inProcess({ step: "try" }, prefixes)).toEqual({ refused: true, code: spent["code"] });
      // Another key prefix (another deployment) has its own budget.
      expect(await inProcess({ step: "try" }, prefixesOf())).toEqual({ refused: false });
    });

    it("the webhook claims: one delivery is accepted once, whichever process receives it", async () => {
      const prefixes = prefixesOf();
      const body = JSON.stringify({ type: "evaluation.completed", data: {} });
      const headers = await sign({ webhookSecret: sim.webhookSecret, body });
      const delivery = { method: "POST", headers: { ...headers, "content-type": "application/json" }, body };
      const step = { step: "verify", url: "http://127.0.0.1/webhooks", delivery };
      const first = await inProcess(step, prefixes);
      expect(first["outcome"]).not.toBe("replayed");
      expect(await inProcess(step, prefixes)).toEqual({ outcome: "replayed" });
    });

    it("the resume points: an upload one process left half-way, another resumes", async () => {
      const prefixes = prefixesOf();
      const part = await inProcess({ step: "upload-part", stopAt: 2 * CHUNK }, prefixes);
      const done = await inProcess({ step: "upload" }, prefixes);
      expect(done["uploadId"]).toBe(part["uploadId"]);
      expect(done["resumedFrom"]).toBeGreaterThanOrEqual(2 * CHUNK);
    });
  });
});
