import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, startRedis, type TestRedis } from "../../../testing/redis-server.ts";

const packageDir = join(import.meta.dirname, "..");
const WORKERS = 8;
const LIMIT = 60;
const WINDOW_MS = 1000;
const RUN_MS = 5000;

describe.runIf(redisAvailable("rate-budget eight processes"))(
  "eight processes share one key through Redis, against the simulator (60 per 1000 ms)",
  () => {
    let redis: TestRedis;
    let sim: Simulator;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      // The workers run the built package, as a user's processes would.
      execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: packageDir, stdio: "inherit" });
      redis = await startRedis();
      sim = await startSimulator({ rateLimitWindowMs: WINDOW_MS, mainApiLimit: LIMIT });
    });

    afterAll(async () => {
      for (const child of children) if (child.exitCode === null) child.kill();
      await sim?.close();
      await redis?.stop();
    });

    it("gets zero 429s and uses at least 95% of the budget", async () => {
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
      const ready: Promise<void>[] = [];
      const done: Promise<{ ok: number; tooMany: number; other: number }>[] = [];
      for (let i = 0; i < WORKERS; i++) {
        const child = fork(join(packageDir, "test", "redis-worker.mjs"), {
          env: { ...process.env, BUDGET_WORKER: JSON.stringify(config) },
          stdio: "inherit",
        });
        children.push(child);
        ready.push(new Promise((resolve) => child.once("message", () => resolve())));
        done.push(
          new Promise((resolve, reject) => {
            child.on("message", (m: { counts?: { ok: number; tooMany: number; other: number } }) => {
              if (m.counts) resolve(m.counts);
            });
            child.once("exit", (code) => reject(new Error(`worker exited with ${code} before reporting`)));
          }),
        );
      }
      await Promise.all(ready);
      const startAt = Date.now() + 300;
      for (const child of children) child.send({ startAt });
      const counts = await Promise.all(done);

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
      expect(tooMany).toBe(0);
      expect(use).toBeGreaterThanOrEqual(0.95);
    });
  },
);
