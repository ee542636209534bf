/**
 * `@promo-review/errors` and `@promo-review/http` against the simulator: an authenticated request, a
 * 404 and a 401 mapped to their typed errors, and an error envelope mapped without any network.
 */
import { AuthenticationError, NotFoundError, PromoReviewError } from "@promo-review/errors";
import { errorFromHttp } from "@promo-review/errors/internal";
import { createHttpClient } from "@promo-review/http";
import { describeError, runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

export async function run({ sim }: ScenarioInput): Promise<ScenarioOutput> {
  const credentials = { apiKey: sim.apiKey, externalUserId: sim.externalUserId };
  const client = createHttpClient({ baseUrl: sim.baseUrl, ...credentials });
  const channels = await client.request<{ channels: { id: string }[] }>("/v1/channels", {
    correlationId: "proof-channels",
  });

  let notFound: unknown;
  try {
    await client.request("/v1/promotions/00000000-0000-4000-8000-000000000000");
  } catch (error) {
    notFound = error;
  }
  let unauthorized: unknown;
  try {
    const bad = createHttpClient({ baseUrl: sim.baseUrl, ...credentials, apiKey: "sk_bad" });
    await bad.request("/v1/channels");
  } catch (error) {
    unauthorized = error;
  }
  const mapped = errorFromHttp({
    status: 429,
    headers: new Headers({ "retry-after": "3" }),
    body: JSON.stringify({
      error: { code: "RATE_LIMITED", message: "Slow down" },
      correlationId: "c0ffee00-0000-4000-8000-000000000000",
    }),
  });

  return {
    runtime: runtimeFingerprint(),
    channelIds: channels.data.channels.map((c) => c.id),
    channelsCorrelationId: channels.correlationId,
    notFound: { ...describeError(notFound), typed: notFound instanceof NotFoundError },
    unauthorized: { ...describeError(unauthorized), typed: unauthorized instanceof AuthenticationError },
    mapped: { ...describeError(mapped), typed: mapped instanceof PromoReviewError },
  };
}
