// One of the worker processes of eight-processes.test.ts and cluster.test.ts: it shares one key's budget with the
// others through Redis (the built dist, as a user would run it) and sends GET /v1/channels to the
// simulator as fast as the budget allows until the deadline, then reports its answers.
import { Cluster, Redis } from "ioredis";
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
  store: new RedisStore({ client: redis }),
});
const headers = { Authorization: `Bearer ${config.apiKey}`, "X-External-User-ID": config.externalUserId };
const url = `${config.baseUrl}/v1/channels`;
const counts = { ok: 0, tooMany: 0, other: 0 };

async function loop(deadline) {
  for (;;) {
    let ticket;
    try {
      ticket = await budget.acquire({ method: "GET", url }, { deadline, ticket: true });
    } catch (error) {
      if (error?.code === "BUDGET_DEADLINE") return;
      throw error;
    }
    const response = await fetch(url, { headers });
    // The server counted the request before this moment: the admission counts from here on.
    ticket.settle();
    await response.arrayBuffer();
    if (response.status === 200) counts.ok++;
    else if (response.status === 429) {
      counts.tooMany++;
      await budget.learn(response);
    } else counts.other++;
  }
}

process.on("message", async (message) => {
  const wait = message.startAt - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const deadline = message.startAt + config.runMs;
  await Promise.all(Array.from({ length: config.concurrency }, () => loop(deadline)));
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
