/**
 * One of several processes sharing one key's budget through `upstashStore` (Upstash over REST): it
 * sends GET /v1/channels to the simulator as fast as the shared budget admits, from `startAt` for
 * `runMs`, settling each ticket when its answer arrives, and reports the statuses it saw (the loop of
 * testing/budget-loop.mjs, which rate-budget's Redis workers run too).
 */
import { createRateBudget } from "@promo-review/rate-budget";
import { upstashStore } from "@promo-review/store/upstash";
import { Redis } from "@upstash/redis";
import { sendWhileAdmitted } from "../../../testing/budget-loop.mjs";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** The budget shared by the processes, and when they run. */
export interface UpstashBudgetInput extends ScenarioInput {
  upstash: { url: string; token: string; prefix: string };
  keyId: string;
  limit: number;
  windowMs: number;
  startAt: number;
  runMs: number;
  concurrency: number;
}

export async function run(input: ScenarioInput): Promise<ScenarioOutput> {
  const { sim, upstash, keyId, limit, windowMs, startAt, runMs, concurrency } = input as UpstashBudgetInput;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
  const budget = createRateBudget({
    baseUrl: sim.baseUrl,
    keyId,
    // Tickets settled at the response cover the latency; the margin covers timestamp rounding.
    safetyMarginMs: 10,
    maxQueue: 10_000,
    budgets: [{ name: "shared", limit, windowMs, match: { pathPrefix: "/v1/" } }],
    // A generous deadline: this proves sharing on a loaded machine; the outage cases prove deadlines.
    store: upstashStore(redis, { prefixes: { window: upstash.prefix }, timeoutMs: 20_000 }),
  });
  const headers = { Authorization: `Bearer ${sim.apiKey}`, "X-External-User-ID": sim.externalUserId };
  const url = `${sim.baseUrl}/v1/channels`;
  // Warm up: the script loaded, fetch's connections open (a fresh runtime's first fetch is slow).
  await redis.ping();
  await fetch(`${sim.filesUrl}/v1/uploads/00000000-0000-4000-8000-000000000000`, { headers }).then((r) =>
    r.arrayBuffer(),
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  const counts = await sendWhileAdmitted({ budget, url, headers, deadline: startAt + runMs, concurrency });
  return { runtime: runtimeFingerprint(), ...counts };
}
