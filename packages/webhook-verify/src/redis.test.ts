import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
// One redis-server harness in the repository (it finds, starts and stops the binary, makes and
// disconnects the clients, and under CI=true refuses to skip).
import { redisAvailable, useRedis } from "../../../testing/redis-server.ts";
import * as nodeEntry from "./index.node.js";
import { createWebhookVerifier } from "./index.node.js";
import { createRedisReplayStore } from "./redis.js";
import { NOW_MS, SECRET, sampleEvent, signed } from "./test-fixtures.js";

describe.runIf(redisAvailable("webhook-verify Redis replay store"))(
  "Redis replay store (real redis-server)",
  () => {
    const { connect, prefix } = useRedis(Redis);

    it("claims with SET NX PX: once, with the TTL set in Redis, and again after DEL", async () => {
      const client = connect();
      const keyPrefix = prefix();
      const store = createRedisReplayStore({ client, prefix: keyPrefix });
      expect(await store.claim("msg_1", 60_000)).toBe(true);
      expect(await store.claim("msg_1", 60_000)).toBe(false);
      const ttl = await client.pttl(`${keyPrefix}msg_1`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      await store.release("msg_1");
      expect(await client.exists(`${keyPrefix}msg_1`)).toBe(0);
      expect(await store.claim("msg_1", 60_000)).toBe(true);
    });

    it("lets exactly one of many concurrent claims from separate connections win", async () => {
      const keyPrefix = prefix();
      const stores = Array.from({ length: 8 }, () =>
        createRedisReplayStore({ client: connect(), prefix: keyPrefix }),
      );
      const results = await Promise.all(stores.map((store) => store.claim("msg_race", 10_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("lets Redis expire a claim", async () => {
      const client = connect();
      const store = createRedisReplayStore({ client, prefix: prefix() });
      expect(await store.claim("msg_short", 0.4)).toBe(true);
      // A sub-millisecond TTL is rounded up to Redis's minimum of 1 ms; wait until Redis has dropped it.
      await expect.poll(() => store.claim("msg_short", 60_000)).toBe(true);
    });

    it("uses the default prefix, and protects two verifier instances sharing one Redis", async () => {
      const client = connect();
      const first = createWebhookVerifier({
        secrets: SECRET,
        now: () => NOW_MS,
        replayStore: createRedisReplayStore({ client }),
      });
      const second = createWebhookVerifier({
        secrets: SECRET,
        now: () => NOW_MS,
        replayStore: createRedisReplayStore({ client: connect() }),
      });
      const delivery = await signed(nodeEntry, JSON.stringify(sampleEvent()), SECRET);
      await client.del("promo-review:webhook-id:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
      await first.verify(delivery);
      expect(await client.exists("promo-review:webhook-id:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W")).toBe(1);
      await expect(second.verify(delivery)).rejects.toMatchObject({ reason: "replayed" });
      await second.release("msg_2KWPBgLlAfxdpx2AI54pPJ85f4W");
      await expect(second.verify(delivery)).resolves.toBeDefined();
    });
  },
);
