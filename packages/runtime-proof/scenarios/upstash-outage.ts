/**
 * `upstashStore` while its REST server stalls or answers 5xx (the test sets the fault before this
 * process starts): each call of the budget, a claim and a resume point ends within the store's
 * `timeoutMs`, failing closed (a retryable error naming what it served) or open (this process's memory).
 */
import { upstashStore } from "@promo-review/store/upstash";
import { Redis } from "@upstash/redis";
import { describeError, runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** The store's deadline and rule when unreachable. */
export interface UpstashOutageInput extends ScenarioInput {
  upstash: { url: string; token: string; prefix: string };
  timeoutMs: number;
  whenUnavailable: "closed" | "open";
}

export async function run(input: ScenarioInput): Promise<ScenarioOutput> {
  const { upstash, timeoutMs, whenUnavailable } = input as UpstashOutageInput;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
  const prefix = upstash.prefix;
  const store = upstashStore(redis, {
    timeoutMs,
    whenUnavailable,
    prefixes: { window: prefix, claim: prefix, value: prefix },
  });
  const windows = [{ id: "minute", limit: 60, windowMs: 60_000 }];
  const calls: [string, () => Promise<unknown>][] = [
    ["take", async () => store.take("key", windows)],
    ["claim", () => store.claim("msg_1", 60_000)],
    ["get", () => store.get("upload")],
  ];
  const outcomes: Record<string, unknown>[] = [];
  for (const [name, call] of calls) {
    const started = Date.now();
    const outcome = await call().then(
      (value) => ({ value }),
      (error: unknown) => ({ error: describeError(error) }),
    );
    outcomes.push({ name, elapsedMs: Date.now() - started, ...outcome });
  }
  return { runtime: runtimeFingerprint(), outcomes };
}
