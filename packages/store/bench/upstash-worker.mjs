// One process of bench/upstash-ratelimit.run.ts: decides with one limiter, over its own
// `@upstash/redis` client, against the benchmark's local Upstash REST server, from `startAt` to
// `endAt` with `inFlight` loops, and reports how many decisions it made and how many admitted.
// `ours` is upstashStore's exact window (the built dist, as a user runs it), `theirs`
// `@upstash/ratelimit`'s sliding window, each with its defaults. In a burst a refused loop waits as
// its limiter says (ours: `waitMs`; theirs: until `reset`, as its `blockUntilReady` does).
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { upstashStore } from "../dist/upstash.js";

const config = JSON.parse(process.env.UPSTASH_BENCH ?? "{}");
const redis = new Redis({ url: config.url, token: config.token, enableTelemetry: false });
const decide = limiterOf(config);

function limiterOf({ limiter, limit, windowMs, prefix }) {
  if (limiter === "ours") {
    // A long deadline: on a loaded machine this measures decisions, not the store failing closed.
    const store = upstashStore(redis, { prefixes: { window: prefix }, timeoutMs: 10_000 });
    const windows = [{ id: "window", limit, windowMs }];
    return async (key) => store.take(key, windows);
  }
  const ratelimit = new Ratelimit({
    redis,
    limiter: Ratelimit.slidingWindow(limit, `${windowMs / 1000} s`),
    prefix,
  });
  return async (key) => {
    const answer = await ratelimit.limit(key);
    return answer.success ? { ok: true } : { ok: false, waitMs: answer.reset - Date.now() };
  };
}

const counts = { decisions: 0, admissions: 0, failed: 0 };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function loop(endAt) {
  while (Date.now() < endAt) {
    let decision;
    try {
      decision = await decide(config.key);
    } catch {
      counts.failed++;
      continue;
    }
    counts.decisions++;
    if (decision.ok) counts.admissions++;
    else await sleep(Math.max(0, Math.min(decision.waitMs, endAt - Date.now())));
  }
}

process.on("message", async ({ startAt, endAt }) => {
  await sleep(Math.max(0, startAt - Date.now()));
  await Promise.all(Array.from({ length: config.inFlight }, () => loop(endAt)));
  process.send({ report: counts }, () => process.disconnect());
});
// Warm up on another key (scripts loaded, connections open) before the start signal.
await redis.ping();
await decide(`${config.key}:warm`);
process.send({ ready: true });
