import { PromoReviewError } from "@promo-review/errors";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisClusterAvailable, useRedisCluster } from "../../../testing/redis-cluster.ts";
import { budgetedFetch, createRateBudget } from "../src/index.js";
import { type RedisScriptClient, RedisStore } from "../src/redis.js";
import type { WindowSpec } from "../src/rules.js";
import { buildPackage, forkWorkers } from "./workers.ts";

const WORKERS = 4;
const LIMIT = 30;
const WINDOW_MS = 1000;
const RUN_MS = 3000;
const TIMEOUT_MS = 500;
/** Room for a loaded 2-core machine; the bound itself is the store's deadline. */
const SLACK_MS = 1000;

interface Counts {
  ok: number;
  tooMany: number;
  other: number;
}

describe.runIf(redisClusterAvailable("rate-budget Redis Cluster"))(
  "the Redis store on a real Redis Cluster (three masters, ioredis Cluster)",
  () => {
    const { connect, prefix, cluster } = useRedisCluster(Cluster);
    let sim: Simulator;

    beforeAll(async () => {
      buildPackage();
      sim = await startSimulator({ rateLimitWindowMs: WINDOW_MS, mainApiLimit: LIMIT });
    });

    afterAll(async () => {
      await sim?.close();
    });

    describe("ioredis's Cluster is a client the store takes, and one key's windows share one slot", () => {
      it("decides across several windows in one script (a key in another slot would be CROSSSLOT)", async () => {
        const client: RedisScriptClient = connect();
        const store = new RedisStore({ client, prefix: prefix() });
        const shared: WindowSpec = { id: "shared", rule: "shared", limit: 2, windowMs: 60_000 };
        const links: WindowSpec = { id: "links", rule: "links", limit: 1, windowMs: 60_000, holdMs: 100 };
        // Keys spread over every master: each key's decision runs on the node that holds its slot.
        for (const key of ["a", "b", "c", "d", "e", "f"]) {
          await expect(store.take(key, [shared, links], `${key}-1`)).resolves.toEqual({ ok: true });
          await store.settle(key, [shared, links], `${key}-1`);
          await expect(store.take(key, [shared, links])).resolves.toMatchObject({
            ok: false,
            full: ["links"],
          });
          await expect(store.take(key, [shared])).resolves.toEqual({ ok: true });
          await expect(store.take(key, [shared])).resolves.toMatchObject({ ok: false, full: ["shared"] });
          await store.pause(key, 60_000);
          await expect(store.take(key, [shared])).resolves.toMatchObject({ ok: false, paused: true });
        }
      });
    });

    describe("processes sharing one key through the cluster keep to the limit (against the simulator)", () => {
      it(`${WORKERS} processes: zero 429s`, async () => {
        const workers = forkWorkers<Counts>({
          file: "redis-worker.mjs",
          count: WORKERS,
          config: {
            cluster: cluster().startup,
            baseUrl: sim.baseUrl,
            filesUrl: sim.filesUrl,
            apiKey: sim.apiKey,
            externalUserId: sim.externalUserId,
            keyId: `${prefix()}processes`,
            limit: LIMIT,
            windowMs: WINDOW_MS,
            safetyMarginMs: 10,
            runMs: RUN_MS,
            concurrency: 8,
          },
          reportDeadlineMs: RUN_MS + 20_000,
        });
        try {
          await workers.ready;
          const counts = await workers.start(Date.now() + 300);
          const log = sim.control.requests().filter((r) => r.path === "/v1/channels");
          const ok = log.filter((r) => r.status === 200).length;
          const tooMany = log.filter((r) => r.status === 429).length;
          const capacity = (LIMIT * RUN_MS) / WINDOW_MS;
          console.log(
            `cluster, ${WORKERS} processes: ${ok} admitted of ${capacity} (${((ok / capacity) * 100).toFixed(1)}%), ` +
              `${tooMany} 429s; per worker ${counts.map((c) => c.ok).join(", ")}`,
          );
          expect(counts.reduce((sum, c) => sum + c.ok + c.tooMany + c.other, 0)).toBe(log.length);
          expect(ok).toBeGreaterThan(0);
          expect(tooMany).toBe(0);
        } finally {
          workers.stop();
        }
      }, 90_000);
    });

    // Last: it kills a master, and the cluster stays down for the rest of the file.
    describe("with the master holding the key's slot killed, calls fail closed within timeoutMs", () => {
      it("every call is refused, typed and retryable, within the deadline; nothing reaches the service", async () => {
        const key = "killed-master";
        const client = connect();
        const errors: unknown[] = [];
        const store = new RedisStore({
          client,
          prefix: prefix(),
          timeoutMs: TIMEOUT_MS,
          recheckMs: 100,
          onError: (e) => errors.push(e),
        });
        await sim.control.reset(); // the service's own window forgets the previous test's requests
        const budget = createRateBudget({ baseUrl: sim.baseUrl, keyId: key, store });
        const send = budgetedFetch(budget);
        const headers = { Authorization: `Bearer ${sim.apiKey}`, "X-External-User-ID": sim.externalUserId };
        expect((await send(`${sim.baseUrl}/v1/channels`, { headers })).status).toBe(200);
        const sentBefore = sim.control.requests().length;

        const master = await cluster().masterOf(`{${key}}`);
        await master.stop("SIGKILL");
        const outcomes = await Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            // Spread over a few seconds: the first calls meet a dead connection, later ones a cluster that knows.
            await new Promise((resolve) => setTimeout(resolve, i * 250));
            const start = Date.now();
            const error = await send(`${sim.baseUrl}/v1/channels`, { headers }).then(
              (r) => new Error(`sent, answered ${r.status}`),
              (e: unknown) => e,
            );
            return { error, ms: Date.now() - start };
          }),
        );
        console.log(`cluster, master killed: refusals within ${outcomes.map((o) => o.ms).join(", ")} ms`);
        for (const { error, ms } of outcomes) {
          expect(error).toBeInstanceOf(PromoReviewError);
          expect(error).toMatchObject({ code: "BUDGET_STORE_UNAVAILABLE", retryable: true });
          expect(ms).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);
        }
        expect(sim.control.requests().length).toBe(sentBefore);
        expect(errors.length).toBeGreaterThan(0);
        budget.close();
      }, 60_000);
    });
  },
);
