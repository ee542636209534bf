/**
 * `@upstash/redis` itself in the runtime, against the local Upstash REST server: one process claims a
 * key with `SET NX PX` (as a webhook receiver would claim a delivery), reads the winner back, and runs
 * a script by EVALSHA with an EVAL fallback. Several processes run it at once: exactly one claims.
 */
import { Redis } from "@upstash/redis";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** Where the REST server is, and the key every process races for. */
export interface UpstashClientInput extends ScenarioInput {
  upstash: { url: string; token: string };
  key: string;
}

export async function run(input: ScenarioInput): Promise<ScenarioOutput> {
  const { upstash, key } = input as UpstashClientInput;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
  const mine = crypto.randomUUID();
  const claimed = (await redis.set(key, mine, { px: 60_000, nx: true })) === "OK";
  const holder = await redis.get<string>(key);
  const script = redis.createScript<number>("return redis.call('INCR', KEYS[1])");
  const count = await script.exec([`${key}:count`], []);
  return { runtime: runtimeFingerprint(), claimed, holderIsMe: holder === mine, count };
}
