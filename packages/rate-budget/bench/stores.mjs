// Budget-store decisions per second: memory, Redis (a throwaway redis-server on 127.0.0.1) and Deno KV
// (in deno, on a local KV file), on one key with a window that never binds, one decision at a time and
// 16 in flight. Runs the built package; figures are printed and written to
// bench/results/rate-budget-stores.md.
import { join } from "node:path";
import { Redis } from "ioredis";
import { rate, redisRow, runDenoBench, writeStoresTable } from "../../../scripts/bench-stores.mjs";
import { MemoryStore } from "../dist/index.js";
import { RedisStore } from "../dist/redis.js";

const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 2000);
const packageDir = join(import.meta.dirname, "..");
const WINDOWS = [{ id: "shared", rule: "shared", limit: 1000, windowMs: 10 }];
async function measure(store) {
  let refused = 0;
  const take = async () => {
    if (!(await store.take("bench", WINDOWS)).ok) refused++;
  };
  const sequential = await rate(take, { total: DECISIONS, inFlight: 1 });
  const concurrent = await rate(take, { total: DECISIONS, inFlight: 16 });
  return { sequential, concurrent, refused };
}

const rows = [];
const memory = new MemoryStore();
await measure(memory);
rows.push({ store: "memory (`MemoryStore`)", where: "Node, in process", ...(await measure(memory)) });

rows.push(
  await redisRow({
    Redis,
    store: "Redis (`/redis`, one Lua script)",
    makeStore: (client) => new RedisStore({ client }),
    measure,
  }),
);

const deno = await runDenoBench(packageDir, "deno/bench-decisions.ts", [String(DECISIONS)]);
rows.push({
  store: "Deno KV (`/deno`, read + checked commit)",
  where: "deno, KV on a local file (SQLite)",
  ...deno,
});

writeStoresTable("rate-budget-stores", {
  title: "@promo-review/rate-budget: budget stores",
  unit: "decisions",
  method: `${DECISIONS} decisions per column on one key after a warm-up, a window of 1000 per 10 ms (binding only above 100,000 decisions per second: the memory and Redis rows then include refusals, which write nothing), one in flight (as one budget issues them) or 16 racing for the key (Deno KV: each conflict is read and decided again). Deno KV measured inside deno (\`deno/bench-decisions.ts\`); on Deno Deploy each read and commit is a network round trip to the region's KV instead of local SQLite.`,
  rows,
});
