import type { ReplayStore } from "./replay-store.js";

/**
 * The part of a Redis client the store uses. An `ioredis` client fits (it is an optional peer
 * dependency); so does anything else with the same `set` and `del`.
 */
export interface RedisLikeClient {
  set(key: string, value: string, px: "PX", ttlMs: number, nx: "NX"): Promise<"OK" | null | string>;
  del(key: string): Promise<number>;
}

/** Options of {@link createRedisReplayStore}. */
export interface RedisReplayStoreOptions {
  /** An ioredis-compatible client, connected or connecting. */
  client: RedisLikeClient;
  /** Prefix of every key (default `promo-review:webhook-id:`), to share a database safely. */
  prefix?: string;
}

/**
 * A replay store in Redis, shared by every instance of a receiver: `SET key 1 PX ttl NX` claims
 * atomically (one winner among concurrent claims, expiry by Redis itself), `DEL` releases.
 */
export function createRedisReplayStore(options: RedisReplayStoreOptions): ReplayStore {
  const prefix = options.prefix ?? "promo-review:webhook-id:";
  const { client } = options;
  return {
    async claim(id, ttlMs) {
      // PX takes an integer of at least 1.
      const answer = await client.set(prefix + id, "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
      return answer === "OK";
    },
    async release(id) {
      await client.del(prefix + id);
    },
  };
}
