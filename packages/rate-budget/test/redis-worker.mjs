// One of the worker processes of eight-processes.test.ts and cluster.test.ts: it shares one key's budget with the
// others through Redis (the built dist, as a user would run it) and sends GET /v1/channels to the
// simulator as fast as the budget allows until the deadline (testing/budget-loop.mjs, the loop the
// Upstash proofs run too), then reports its answers.
import { Cluster, Redis } from "ioredis";
import { sendWhileAdmitted } from "../../../testing/budget-loop.mjs";
import { createRateBudget } from "../dist/index.js";
import { RedisStore } from "../dist/redis.js";

const config = JSON.parse(process.env.BUDGET_WORKER ?? "{}");
// A Redis Cluster when given its startup nodes, else one redis-server.
const redis = config.cluster
  ? new Cluster(config.cluster)
  : new Redis({ host: "127.0.0.1", port: config.redisPort });
const budget = createRateBudget({
  baseUrl: config.baseUrl,
  keyId: config.keyId,
  safetyMarginMs: config.safetyMarginMs,
  maxQueue: 10_000,
  budgets: [
    { name: "shared", limit: config.limit, windowMs: config.windowMs, match: { pathPrefix: "/v1/" } },
  ],
  // The rule here is the limit across processes, not the deadline (outage.test.ts has that): eight
  // processes forked on a loaded machine can keep Redis's answer past the default 1 s, which would end
  // a worker with BUDGET_STORE_UNAVAILABLE instead of measuring the limit.
  store: new RedisStore({ client: redis, timeoutMs: 10_000 }),
});
const headers = { Authorization: `Bearer ${config.apiKey}`, "X-External-User-ID": config.externalUserId };
const url = `${config.baseUrl}/v1/channels`;
process.on("message", async (message) => {
  const wait = message.startAt - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const deadline = message.startAt + config.runMs;
  const counts = await sendWhileAdmitted({ budget, url, headers, deadline, concurrency: config.concurrency });
  process.send({ report: counts }, () => {
    redis.disconnect();
    process.disconnect();
  });
});
// Connect before the start signal, so the first decisions do not pay for the handshake, and warm
// fetch up on the (unlimited) file service: a fresh process's first fetch loads and compiles undici
// and opens its sockets, hundreds of ms that would otherwise separate admission from arrival.
await redis.ping();
await Promise.all(
  Array.from({ length: config.concurrency }, () =>
    fetch(`${config.filesUrl}/v1/uploads/00000000-0000-4000-8000-000000000000`, { headers }).then((r) =>
      r.arrayBuffer(),
    ),
  ),
);
process.send({ ready: true });
