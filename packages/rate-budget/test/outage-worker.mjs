// One of the worker processes of outage.test.ts: it shares one key's budget with the others through
// a Redis that the test kills and restarts, and sends GET /v1/channels to the simulator as the budget
// allows. It reports every call (when it started, how long the budget took, what came of it), every
// store decision's duration, and when Redis itself admitted a request.
import { Redis } from "ioredis";
import { createRateBudget } from "../dist/index.js";
import { RedisStore } from "../dist/redis.js";

const config = JSON.parse(process.env.BUDGET_WORKER ?? "{}");
// ioredis's defaults, as most users run it: an offline queue, 20 retries per command, reconnects
// 50 ms apart at first and up to 2 s apart later.
const redis = new Redis({ host: "127.0.0.1", port: config.redisPort });
redis.on("error", () => {});
const redisAdmissions = [];
const client = {
  // The store's client, recording when Redis itself admitted a request (not the fallback).
  evalsha: (...args) => redis.evalsha(...args).then((answer) => record(args, answer)),
  eval: (...args) => redis.eval(...args).then((answer) => record(args, answer)),
};
function record([, numKeys, ...rest], answer) {
  if (rest[numKeys] === "take" && Array.isArray(answer) && answer[0] === 1) redisAdmissions.push(Date.now());
  return answer;
}
const store = new RedisStore({ client, whenUnavailable: config.mode, timeoutMs: config.timeoutMs });
const decisions = [];
// Each decision is timed beside a plain timer set for timeoutMs at the same moment: on a loaded machine
// that timer itself runs late (an event loop busy elsewhere), and the store's own deadline timer, set
// just after it, can fire no earlier. The test bounds a decision by timeoutMs plus that lateness.
const timed =
  (method) =>
  async (...args) => {
    const start = Date.now();
    let referenceLateMs = 0;
    const reference = setTimeout(() => {
      referenceLateMs = Math.max(0, Date.now() - start - config.timeoutMs);
    }, config.timeoutMs);
    try {
      return await store[method](...args);
    } finally {
      clearTimeout(reference);
      decisions.push({ method, at: start, ms: Date.now() - start, referenceLateMs });
    }
  };
const budget = createRateBudget({
  baseUrl: config.baseUrl,
  keyId: config.keyId,
  maxQueue: 10_000,
  budgets: [
    { name: "shared", limit: config.limit, windowMs: config.windowMs, match: { pathPrefix: "/v1/" } },
  ],
  store: { take: timed("take"), settle: timed("settle"), pause: timed("pause") },
});
const headers = { Authorization: `Bearer ${config.apiKey}`, "X-External-User-ID": config.externalUserId };
const url = `${config.baseUrl}/v1/channels`;
const calls = [];

async function loop(deadline) {
  while (Date.now() < deadline) {
    const start = Date.now();
    let ticket;
    try {
      ticket = await budget.acquire({ method: "GET", url }, { ticket: true });
    } catch (error) {
      calls.push({ start, waitMs: Date.now() - start, outcome: error?.code ?? String(error) });
      // A refusal (closed mode) is retryable: try again shortly, as a caller would.
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    const waitMs = Date.now() - start;
    const response = await fetch(url, { headers });
    ticket.settle();
    await response.arrayBuffer();
    calls.push({ start, waitMs, sentAt: start + waitMs, outcome: response.status });
    if (response.status === 429) await budget.learn(response);
  }
}

process.on("message", async (message) => {
  const wait = message.startAt - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  await Promise.all(Array.from({ length: config.concurrency }, () => loop(message.startAt + config.runMs)));
  budget.close();
  process.send({ report: { calls, decisions, redisAdmissions } }, () => {
    redis.disconnect();
    process.disconnect();
  });
});
await redis.ping();
await fetch(`${config.filesUrl}/v1/uploads/00000000-0000-4000-8000-000000000000`, { headers }).then((r) =>
  r.arrayBuffer(),
);
process.send({ ready: true });
