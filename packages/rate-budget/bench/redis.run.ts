/**
 * Decisions per second of the Redis store on loopback: one redis-server, and a three-master Redis
 * Cluster through ioredis's `Cluster`, with one key (every decision on one master) and with 64 keys
 * (spread over the masters). Run by `pnpm bench` (see bench/vitest.redis.config.ts); writes
 * bench/results/rate-budget-redis.md. Figures, never asserted.
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
import { RedisStore } from "../src/redis.js";
import type { WindowSpec } from "../src/rules.js";

const { runs: RUNS, ms: MS, inFlight: IN_FLIGHT } = BENCH;
// Not binding: the limit never refuses, so every call is a full decision that admits.
const WINDOW: WindowSpec = { id: "shared", rule: "shared", limit: 1_000_000, windowMs: 1000 };

describe.runIf(redisClusterAvailable("rate-budget Redis benchmark"))(
  "Redis store decisions per second",
  () => {
    const targets = useRedisTargets(Redis, Cluster);

    it("one redis-server and a three-master cluster", async () => {
      const rows: RateRow[] = [];
      for (const target of targets()) {
        const store = new RedisStore({ client: target.connect(), prefix: target.prefix() });
        await store.take("warm", [WINDOW]);
        for (const keys of [1, 64]) {
          const row: RateRow = {
            name: `${target.name}, ${keys === 1 ? "one key" : `${keys} keys`}`,
            rates: [],
          };
          for (let run = 0; run < RUNS; run++) {
            const take = (i: number) => store.take(`k${i % keys}`, [WINDOW]);
            row.rates.push(await callsPerSecond(take, { inFlight: IN_FLIGHT, ms: MS }));
          }
          rows.push(row);
        }
      }
      writeRateTable({
        file: "rate-budget-redis.md",
        title: "@promo-review/rate-budget, Redis store",
        method:
          `\`RedisStore.take\` (one Lua script per decision, EVALSHA) from one Node process with one ioredis ` +
          `client, ${IN_FLIGHT} decisions in flight, for ${MS} ms; ${RUNS} runs. A limit that never binds, so ` +
          "every decision admits. One process is the client's ceiling here: the cluster's rows show what a " +
          "client pays to route by slot, not what three masters can serve.",
        unit: "decisions",
        rows,
      });
    });
  },
);
