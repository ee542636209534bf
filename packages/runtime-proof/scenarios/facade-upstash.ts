/**
 * `createClient({ store: upstashStore(redis) })` in one process (Node) or one sandbox (the Vercel Edge
 * runtime): one step of the whole-client proof (scenarios/client-steps.ts) on the shared Upstash store.
 */
import { upstashStore } from "@promo-review/sdk/upstash";
import { Redis } from "@upstash/redis";
import { type ClientStep, clientOn, clientStep } from "./client-steps.ts";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** The shared store, and the step this process does. */
export interface FacadeUpstashInput extends ScenarioInput {
  upstash: { url: string; token: string; prefix: string };
  step: ClientStep;
}

export async function run(input: ScenarioInput): Promise<ScenarioOutput> {
  const { sim, upstash, step } = input as FacadeUpstashInput;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
  const p = upstash.prefix;
  const client = clientOn(
    sim,
    upstashStore(redis, {
      prefixes: { window: `${p}w:`, claim: `${p}c:`, value: `${p}v:` },
      // A generous deadline: this proves sharing on a loaded machine; the outage suites prove deadlines.
      timeoutMs: 20_000,
    }),
  );
  try {
    return { runtime: runtimeFingerprint(), ...(await clientStep(client, sim.baseUrl, step)) };
  } finally {
    client.budget?.close();
  }
}
