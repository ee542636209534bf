import { WebhookVerificationError } from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { NOW_MS, SECRET, sampleEvent, signed } from "../test/support/fixtures.js";
import * as nodeEntry from "./index.node.js";
import { createMemoryReplayStore, createWebhookVerifier } from "./index.node.js";

describe("the memory replay store claims an id once per window, without timers", () => {
  it("refuses a second claim until the TTL passes, by the injected clock", async () => {
    let now = 1_000;
    const store = createMemoryReplayStore({ now: () => now });
    expect(await store.claim("a", 100)).toBe(true);
    expect(await store.claim("a", 100)).toBe(false);
    now = 1_099;
    expect(await store.claim("a", 100)).toBe(false);
    now = 1_100;
    expect(await store.claim("a", 100)).toBe(true);
  });

  it("release lets the id be claimed again at once", async () => {
    const store = createMemoryReplayStore();
    expect(await store.claim("a", 60_000)).toBe(true);
    await store.release("a");
    expect(await store.claim("a", 60_000)).toBe(true);
  });

  it("of concurrent claims of one id exactly one wins", async () => {
    const store = createMemoryReplayStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim("same", 1_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it("drops expired ids while claiming, so memory holds one window of ids", async () => {
    let now = 0;
    const store = createMemoryReplayStore({ now: () => now });
    for (let i = 0; i < 1_000; i++) await store.claim(`id-${i}`, 10);
    now = 10;
    await store.claim("fresh", 10);
    // The old ids are gone: claiming them again succeeds even though no one released them.
    now = 11;
    expect(await store.claim("id-0", 10)).toBe(true);
    expect(await store.claim("fresh", 10)).toBe(false);
  });
});

describe("a verifier claims each webhook-id for twice the tolerance", () => {
  it("refuses a replay of an accepted delivery as `replayed`, then accepts it once released", async () => {
    let now = NOW_MS;
    const verifier = createWebhookVerifier({ webhookSecret: SECRET, now: () => now, toleranceSeconds: 300 });
    const delivery = await signed(nodeEntry, JSON.stringify(sampleEvent()));
    const first = await verifier.verifyDelivery(delivery);
    expect(first.id).toBe("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
    const error = await verifier.verify(delivery).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).reason).toBe("replayed");
    await verifier.release(first.id);
    await expect(verifier.verify(delivery)).resolves.toBeDefined();
    // Still claimed while the signed timestamp is valid (the window is twice the tolerance).
    now = NOW_MS + 299_000;
    await expect(verifier.verify(delivery)).rejects.toMatchObject({ reason: "replayed" });
  });

  it("uses a given store and window, and none with replayStore: false", async () => {
    const claims: [string, number][] = [];
    const store = {
      claim: async (id: string, ttl: number) => {
        claims.push([id, ttl]);
        return true;
      },
      release: async () => {},
    };
    const delivery = await signed(nodeEntry, JSON.stringify(sampleEvent()));
    const verifier = createWebhookVerifier({
      webhookSecret: SECRET,
      now: () => NOW_MS,
      replayStore: store,
      replayWindowSeconds: 42,
    });
    await verifier.verify(delivery);
    expect(claims).toEqual([["msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", 42_000]]);
    const open = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS, replayStore: false });
    await open.verify(delivery);
    await open.verify(delivery);
    await open.release("anything");
  });

  it("a store that fails is a retryable error of this server, not a refusal", async () => {
    const store = {
      claim: async () => {
        throw new Error("ECONNREFUSED");
      },
      release: async () => {},
    };
    const delivery = await signed(nodeEntry, JSON.stringify(sampleEvent()));
    const verifier = createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS, replayStore: store });
    const error = await verifier.verify(delivery).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ code: "REPLAY_STORE_FAILED", retryable: true });
  });
});
