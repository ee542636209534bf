// Replay-store claims per second: memory, Redis (a throwaway redis-server on 127.0.0.1) and Deno KV
// (in deno, on a local KV file), each claiming fresh ids, one at a time and 16 in flight. Runs the
// built package; figures are printed and written to bench/results/webhook-verify-stores.md.
import { join } from "node:path";
import { Redis } from "ioredis";
import { rate, redisRow, runDenoBench, writeStoresTable } from "../../../scripts/bench-stores.mjs";
import { createMemoryReplayStore } from "../dist/index.js";
import { createRedisReplayStore } from "../dist/redis.js";

const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 2000);
const packageDir = join(import.meta.dirname, "..");
let round = 0;
// Every measurement claims ids no earlier one used: each claim is a first delivery, and wins.
async function measure(store) {
  const prefix = `round-${++round}`;
  return {
    sequential: await rate((i) => store.claim(`${prefix}-seq-${i}`, 600_000), { total: CLAIMS, inFlight: 1 }),
    concurrent: await rate((i) => store.claim(`${prefix}-conc-${i}`, 600_000), {
      total: CLAIMS,
      inFlight: 16,
    }),
  };
}

const rows = [];
const memory = createMemoryReplayStore();
await measure(memory);
rows.push({
  store: "memory (`createMemoryReplayStore`)",
  where: "Node, in process",
  ...(await measure(memory)),
});

rows.push(
  await redisRow({
    Redis,
    store: "Redis (`/redis`, SET NX PX)",
    makeStore: (client) => createRedisReplayStore({ client }),
    measure,
  }),
);

const deno = await runDenoBench(packageDir, "deno/bench-claims.ts", [String(CLAIMS)]);
rows.push({
  store: "Deno KV (`/deno`, atomic check + set)",
  where: "deno, KV on a local file (SQLite)",
  ...deno,
});

writeStoresTable("webhook-verify-stores", {
  title: "@promo-review/webhook-verify: replay stores",
  unit: "claims",
  method: `${CLAIMS} claims of fresh ids per column after a warm-up (a claim that wins: the common case), one in flight (one receiver, one delivery at a time) or 16. Deno KV measured inside deno (\`deno/bench-claims.ts\`); on Deno Deploy a claim is a network round trip to the region's KV instead of a local SQLite commit.`,
  rows,
});
