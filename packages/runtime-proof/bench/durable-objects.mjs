#!/usr/bin/env node
// `pnpm bench` for runtime-proof, second part: claims per second (webhook-verify's replay stores) and
// decisions per second (rate-budget's stores) through the Durable Object stores in workerd (miniflare,
// timed inside the Worker), beside the memory stores and the Redis stores (a redis-server started here on
// 127.0.0.1 and stopped by its pid) on the same machine. Writes bench/results/durable-objects.md at the
// repository root. Figures, not tests: nothing is asserted.
import { createRequire } from "node:module";
import { join } from "node:path";
import { MemoryStore } from "@promo-review/rate-budget";
import { RedisStore } from "@promo-review/rate-budget/redis";
import { createMemoryReplayStore } from "@promo-review/webhook-verify";
import { createRedisReplayStore } from "@promo-review/webhook-verify/redis";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { writeResult } from "../../../scripts/bench-output.mjs";
import { startRedis as startRedisServer } from "../../../scripts/bench-stores.mjs";

const here = import.meta.dirname;
const root = join(here, "..", "..", "..");
// Calls per row: enough for each store to run a few seconds on a loaded 2-core machine.
const N = { memory: 100_000, redis: 5_000, durableObjects: 500 };
const CONCURRENCY = 16;
const WINDOWS = [{ id: "w", rule: "w", limit: 1_000_000, windowMs: 60_000 }];

/** Runs `task` `n` times, CONCURRENCY at a time; answers operations per second. */
async function perSecond(n, task) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return (n * 1000) / (performance.now() - started);
}

/** The shared throwaway redis-server (scripts/bench-stores.mjs) with an ioredis client, or undefined. */
async function startRedis() {
  const server = await startRedisServer();
  if (!server) return undefined;
  const { port } = server;
  // ioredis is a dev dependency of the store packages, not of this one.
  const require = createRequire(join(root, "packages", "webhook-verify", "package.json"));
  const { Redis } = await import(require.resolve("ioredis"));
  const client = new Redis({ host: "127.0.0.1", port, lazyConnect: true });
  await client.connect();
  return {
    client,
    async stop() {
      client.disconnect();
      server.stop();
    },
  };
}

const rows = [];
console.error("bench: memory stores");
const memoryReplay = createMemoryReplayStore();
const memoryBudget = new MemoryStore();
rows.push([
  "memory (one process)",
  await perSecond(N.memory, (i) => memoryReplay.claim(`m-${i}`, 60_000)),
  await perSecond(N.memory, async () => memoryBudget.take("k", WINDOWS)),
]);

console.error("bench: Redis stores");
const redis = await startRedis();
if (redis) {
  try {
    const replay = createRedisReplayStore({ client: redis.client, prefix: `bench:${Date.now()}:` });
    const budget = new RedisStore({ client: redis.client, prefix: `bench:${Date.now()}:` });
    rows.push([
      "Redis (one local redis-server, one connection)",
      await perSecond(N.redis, (i) => replay.claim(`r-${i}`, 60_000)),
      await perSecond(N.redis, () => budget.take("k", WINDOWS)),
    ]);
  } finally {
    await redis.stop();
  }
} else {
  console.warn("!!! bench: redis-server is absent, so the Redis row is left out");
}

console.error("bench: Durable Object stores in miniflare");
const script = join(here, "..", ".proof", "durable-objects.bench.mjs");
await build({
  entryPoints: [join(here, "..", "workers", "durable-objects.ts")],
  bundle: true,
  outfile: script,
  format: "esm",
  platform: "browser",
  target: "es2022",
  conditions: ["workerd", "worker", "browser"],
  logLevel: "silent",
});
const objects = {
  REPLAY: "InspectableState",
  SLOW_REPLAY: "StalledReplayObject",
  LATE_REPLAY: "LateReplayObject",
  BUDGET: "InspectableState",
  SLOW_BUDGET: "StalledBudgetObject",
};
const mf = new Miniflare({
  modules: true,
  scriptPath: script,
  compatibilityDate: "2025-09-01",
  durableObjects: Object.fromEntries(
    Object.entries(objects).map(([name, className]) => [name, { className, useSQLite: true }]),
  ),
});
try {
  const inWorker = async (route, n = N.durableObjects) => {
    const response = await mf.dispatchFetch(`http://proof.invalid/${route}`, {
      method: "POST",
      body: JSON.stringify({ n, concurrency: CONCURRENCY }),
    });
    const answer = await response.json();
    if (!answer.ok) throw new Error(`${route}: ${JSON.stringify(answer.error)}`);
    return (answer.n * 1000) / Math.max(1, answer.ms);
  };
  // One warm-up pass each, so workerd's first compile is not counted.
  await inWorker("benchClaims", 50);
  await inWorker("benchTakes", 50);
  rows.push([
    "Durable Objects (miniflare: workerd on this machine)",
    await inWorker("benchClaims"),
    await inWorker("benchTakes"),
  ]);
} finally {
  await mf.dispose();
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");
const markdown = `# Shared stores: memory, Redis, Durable Objects

Claims per second (\`ReplayStore.claim\` of fresh ids, webhook-verify) and decisions per second
(\`BudgetStore.take\` on one key with room, rate-budget), ${CONCURRENCY} at a time (${N.memory} calls in
memory, ${N.redis} through Redis, ${N.durableObjects} through Durable Objects). Memory and Redis
are timed in Node (\`createMemoryReplayStore\`, \`MemoryStore\`; \`createRedisReplayStore\`, \`RedisStore\` over
one ioredis connection to a redis-server on 127.0.0.1); Durable Objects inside a Worker in miniflare
(\`durableObjectReplayStore\`: one object per id; \`durableObjectBudgetStore\`: every decision of the key in
its one object, which writes its storage before it answers). Local figures: in Cloudflare each claim
or decision is a request to the object's location, so network latency, not these rates, is the bound.

| store | claims/s | decisions/s |
|---|---:|---:|
${rows.map(([name, claims, takes]) => `| ${name} | ${fmt(claims)} | ${fmt(takes)} |`).join("\n")}
`;
console.log(markdown);
writeResult("durable-objects", markdown);
