/**
 * Claims per second of the Redis replay store on loopback: one redis-server, and a three-master Redis
 * Cluster through ioredis's `Cluster` (every claim a new id, so the ids spread over the masters). Run
 * by `pnpm bench` (see bench/vitest.redis.config.ts); writes bench/results/webhook-verify-redis.md.
 * Figures, never asserted.
 */
import { Cluster, Redis } from "ioredis";
import { describe, it } from "vitest";
import {
  BENCH,
  callsPerSecond,
  type RateRow,
  useRedisTargets,
  writeRateTable,
} from "../../../testing/redis-bench.ts";
import { redisClusterAvailable } from "../../../testing/redis-cluster.ts";
import { createRedisReplayStore } from "../src/redis.js";

const { runs: RUNS, ms: MS, inFlight: IN_FLIGHT } = BENCH;

describe.runIf(redisClusterAvailable("webhook-verify Redis benchmark"))(
  "Redis replay store claims per second",
  () => {
    const targets = useRedisTargets(Redis, Cluster);

    it("one redis-server and a three-master cluster", async () => {
      const rows: RateRow[] = [];
      for (const target of targets()) {
        const store = createRedisReplayStore({ client: target.connect(), prefix: target.prefix() });
        const row: RateRow = { name: target.name, rates: [] };
        for (let run = 0; run < RUNS; run++) {
          const claim = (i: number) => store.claim(`msg_${run}_${i}`, 60_000);
          row.rates.push(await callsPerSecond(claim, { inFlight: IN_FLIGHT, ms: MS }));
        }
        rows.push(row);
      }
      writeRateTable({
        file: "webhook-verify-redis.md",
        title: "@promo-review/webhook-verify, Redis replay store",
        method:
          `\`claim\` (SET NX PX, each a new id) from one Node process with one ioredis client, ${IN_FLIGHT} ` +
          `claims in flight, for ${MS} ms; ${RUNS} runs. One process is the client's ceiling here: the ` +
          "cluster's row shows what a client pays to route by slot, not what three masters can serve.",
        unit: "claims",
        rows,
      });
    });
  },
);
