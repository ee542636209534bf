import { ForeignOriginError, RateLimitError, TimeoutError } from "@promo-review/errors";
import { MAX_SERVER_WAIT_MS } from "@promo-review/errors/internal";
import { describe, expect, it } from "vitest";
import {
  HOSTILE_ID,
  HUGE_WAITS,
  hugeWait,
  json,
  PROMOTION_BODY,
  REDIRECT_CODES,
  redirect,
  trickle,
  useHostileServers,
} from "../../../testing/hostile-server.ts";
import { createPromotionsClient, type PromotionsClientOptions } from "./index.js";

const apiKey = "sk_test_promotions_hostile";
const id = HOSTILE_ID;
const body = PROMOTION_BODY;
const start = useHostileServers();

/** A hostile main API and a stranger on another origin that answers like a service would. */
async function setup(options: Partial<PromotionsClientOptions> = {}) {
  const [service, stranger] = await Promise.all([start(), start()]);
  stranger.on(/.*/, json(201, { promotionId: "evil", versionId: "evil", channels: [{ id: "evil" }] }));
  const client = createPromotionsClient({
    baseUrl: service.url,
    apiKey,
    externalUserId: "user-42",
    externalUserEmail: "ana@example.com",
    validate: false,
    retry: { baseDelayMs: 1, maxDelayMs: 2, upstreamDelayMs: [1, 2] },
    ...options,
  });
  return { service, stranger, client };
}

describe("a redirect to another origin gets nothing: no body, no key, no user headers", () => {
  for (const status of REDIRECT_CODES) {
    it(`${status} on create, get and channels: ForeignOriginError naming the other origin`, async () => {
      const { service, stranger, client } = await setup();
      service.on(/.*/, redirect(status, `${stranger.url}/v1/promotions`));
      const created = await client.create(body).catch((e: unknown) => e);
      expect(created).toBeInstanceOf(ForeignOriginError);
      expect((created as ForeignOriginError).origin).toBe(stranger.url);
      await expect(client.get(id)).rejects.toBeInstanceOf(ForeignOriginError);
      await expect(client.reference.channels()).rejects.toBeInstanceOf(ForeignOriginError);
      expect(stranger.requests).toEqual([]);
    });
  }
});

describe("every operation settles within its bound", () => {
  it("a trickling answer to create, get or channels fails with TimeoutError at timeoutMs", async () => {
    const { service, client } = await setup({ timeoutMs: 300, retry: false });
    service.on(/.*/, trickle(200, { everyMs: 50 }));
    await expect(client.create(body)).rejects.toBeInstanceOf(TimeoutError);
    await expect(client.get(id)).rejects.toBeInstanceOf(TimeoutError);
    await expect(client.reference.channels()).rejects.toBeInstanceOf(TimeoutError);
    expect(service.requests).toHaveLength(3);
  });
});

describe("a huge server-given wait fails at once", () => {
  for (const wait of [HUGE_WAITS[1]!, HUGE_WAITS[2]!, HUGE_WAITS[4]!]) {
    it(`${wait.name} on create and get: RateLimitError with retryAfterMs, one request each`, async () => {
      const { service, client } = await setup({ retry: {} });
      service.on(/.*/, hugeWait(wait));
      const created = await client.create(body).catch((e: unknown) => e);
      expect(created).toBeInstanceOf(RateLimitError);
      expect((created as RateLimitError).retryAfterMs).toBeGreaterThan(MAX_SERVER_WAIT_MS);
      await expect(client.get(id)).rejects.toBeInstanceOf(RateLimitError);
      expect(service.requests).toHaveLength(2);
    });
  }
});
