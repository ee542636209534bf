/**
 * One receiver of a webhook delivery, with `upstashStore` (Upstash over REST) as its replay store:
 * `copies` copies of one signed delivery verified at once. Several receivers run it together: of all
 * their copies exactly one is accepted, the rest refused as replays.
 */
import { upstashStore } from "@promo-review/store/upstash";
import { createWebhookVerifier } from "@promo-review/webhook-verify";
import { Redis } from "@upstash/redis";
import { describeError, runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** The delivery (headers and body as base64), and the store the receivers share. */
export interface UpstashWebhookInput extends ScenarioInput {
  upstash: { url: string; token: string; prefix: string };
  delivery: { headers: Record<string, string>; bodyBase64: string };
  copies: number;
}

export async function run(input: ScenarioInput): Promise<ScenarioOutput> {
  const { sim, upstash, delivery, copies } = input as UpstashWebhookInput;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
  const verifier = createWebhookVerifier({
    webhookSecret: sim.webhookSecret,
    store: upstashStore(redis, {
      prefixes: { claim: upstash.prefix },
      // A generous deadline: this proves one acceptance across processes on a loaded machine, where a
      // claim answered after the default 1000 ms fails closed (the winner refused as REPLAY_STORE_FAILED,
      // the rest as replays: none accepted). The outage cases prove the deadline itself.
      timeoutMs: 20_000,
    }),
  });
  const body = Uint8Array.from(atob(delivery.bodyBase64), (c) => c.charCodeAt(0));
  const outcomes = await Promise.all(
    Array.from({ length: copies }, () =>
      verifier.verify({ headers: delivery.headers, body }).then(
        (event) => ({ accepted: true, type: event.type }),
        (error: unknown) => ({ accepted: false, error: describeError(error) }),
      ),
    ),
  );
  return {
    runtime: runtimeFingerprint(),
    accepted: outcomes.filter((o) => o.accepted).length,
    refusals: [
      ...new Set(
        outcomes.filter((o) => !o.accepted).map((o) => JSON.stringify((o as { error: unknown }).error)),
      ),
    ],
  };
}
