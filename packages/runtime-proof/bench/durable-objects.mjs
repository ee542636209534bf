#!/usr/bin/env node
// `pnpm bench` for runtime-proof, second part: claims per second (webhook claims) and decisions per
// second (the budget's window) through the store kit's stores (@promo-review/store, one store serving
// both, as `createClient({ store })` passes it): `durableObjectStore` in workerd (miniflare, timed
// inside the Worker), beside `memoryStore` and `redisStore` (a redis-server started here on 127.0.0.1
// and stopped by its pid) on the same machine. Writes bench/results/durable-objects.md at the
// repository root. Figures, not tests: nothing is asserted.
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { memoryStore } from "@promo-review/store";
import { redisStore } from "@promo-review/store/redis";
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
  // ioredis is a dev dependency of the store kit, not of this package.
  const require = createRequire(join(root, "packages", "store", "package.json"));
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
// Figures move with the machine's load (other work on the 2 cores): said beside them.
const loadAtStart = loadavg()[0];
console.error("bench: memory stores");
const memory = memoryStore();
rows.push([
  "memory (one process)",
  await perSecond(N.memory, (i) => memory.claim(`m-${i}`, 60_000)),
  await perSecond(N.memory, () => memory.take("k", WINDOWS)),
]);

console.error("bench: Redis stores");
const redis = await startRedis();
if (redis) {
  try {
    const run = `bench:${Date.now()}:`;
    const store = redisStore(redis.client, {
      prefixes: { window: `${run}w:`, claim: `${run}c:`, value: `${run}v:` },
    });
    rows.push([
      "Redis (one local redis-server, one connection)",
      await perSecond(N.redis, (i) => store.claim(`r-${i}`, 60_000)),
      await perSecond(N.redis, () => store.take("k", WINDOWS)),
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

Claims per second (\`Store.claim\` of fresh ids, as webhook-verify claims deliveries) and decisions per
second (\`Store.take\` on one key with room, as rate-budget decides), ${CONCURRENCY} at a time, through the
store kit's stores (\`@promo-review/store\`), one store serving both (${N.memory} calls in memory,
${N.redis} through Redis, ${N.durableObjects} through Durable Objects). Memory and Redis are timed in
Node (\`memoryStore()\`; \`redisStore(client)\` over one ioredis connection to a redis-server on 127.0.0.1);
Durable Objects inside a Worker in miniflare (\`durableObjectStore(namespace)\` over \`PromoReviewState\`:
one object per claimed id; every decision of the key in its one object, which writes its storage
before it answers). Local figures: in Cloudflare each claim
or decision is a request to the object's location, so network latency, not these rates, is the bound.
Node ${process.version}, load average ${loadAtStart.toFixed(1)} at the start, ${new Date().toISOString()}.

| store | claims/s | decisions/s |
|---|---:|---:|
${rows.map(([name, claims, takes]) => `| ${name} | ${fmt(claims)} | ${fmt(takes)} |`).join("\n")}
`;
console.log(markdown);
writeResult("durable-objects", markdown);
