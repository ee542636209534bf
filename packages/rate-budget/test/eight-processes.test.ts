import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, startRedis, type TestRedis } from "../../../testing/redis-server.ts";
import { buildPackage, forkWorkers, type Workers } from "./workers.ts";

const WORKERS = 8;
const LIMIT = 60;
const WINDOW_MS = 1000;
const RUN_MS = 5000;

interface Counts {
  ok: number;
  tooMany: number;
  other: number;
}

describe.runIf(redisAvailable("rate-budget eight processes"))(
  "eight processes share one key through Redis, against the simulator (60 per 1000 ms)",
  () => {
    let redis: TestRedis;
    let sim: Simulator;
    let workers: Workers<Counts> | undefined;

    beforeAll(async () => {
      buildPackage();
      redis = await startRedis();
      sim = await startSimulator({ rateLimitWindowMs: WINDOW_MS, mainApiLimit: LIMIT });
    });

    afterAll(async () => {
      workers?.stop();
      await sim?.close();
      await redis?.stop();
    });

    it("gets zero 429s: together they never send more than the limit in a window", async () => {
      const config = {
        redisPort: redis.port,
        baseUrl: sim.baseUrl,
        filesUrl: sim.filesUrl,
        apiKey: sim.apiKey,
        externalUserId: sim.externalUserId,
        keyId: "eight-processes",
        limit: LIMIT,
        windowMs: WINDOW_MS,
        // Tickets settled at the response cover the latency; the margin covers timestamp rounding.
        safetyMarginMs: 10,
        runMs: RUN_MS,
        concurrency: 12,
      };
      workers = forkWorkers<Counts>({
        file: "redis-worker.mjs",
        count: WORKERS,
        config,
        reportDeadlineMs: RUN_MS + 20_000,
      });
      await workers.ready;
      const startAt = Date.now() + 300;
      const counts = await workers.start(startAt);

      const log = sim.control.requests().filter((r) => r.path === "/v1/channels");
      const ok = log.filter((r) => r.status === 200).length;
      const tooMany = log.filter((r) => r.status === 429).length;
      if (process.env["DEBUG_EIGHT"]) {
        console.log(log.map((r) => `${Date.parse(r.time) - startAt}:${r.status}`).join(" "));
      }
      const capacity = (LIMIT * RUN_MS) / WINDOW_MS;
      const use = ok / capacity;
      console.log(
        `eight processes: ${ok} admitted of ${capacity} (${(use * 100).toFixed(1)}% of the budget), ${tooMany} 429s; ` +
          `per worker ${counts.map((c) => c.ok).join(", ")}`,
      );
      expect(counts.reduce((sum, c) => sum + c.ok + c.tooMany + c.other, 0)).toBe(log.length);
      expect(ok).toBeGreaterThan(0);
      expect(tooMany).toBe(0);
      // How much of the budget they use is printed above, not asserted: it measures how fast eight
      // processes get CPU time on this machine (under load, half the budget), which the store does not
      // decide. The store promises the limit, which the zero 429s prove at any speed.
      // Its own deadlines (each worker ready, then reporting within RUN_MS + 20 s) bound it; the test's
      // outlasts them so that a slow fork of eight processes fails with their message, not vitest's 30 s.
    }, 90_000);
  },
);
