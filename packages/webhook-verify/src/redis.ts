import type { ReplayStore } from "./replay-store.js";
import { storeTimeoutMs, withinDeadline } from "./store-deadline.js";

/**
 * The part of a Redis client the store uses. An `ioredis` client fits (it is an optional peer
 * dependency); so does anything else with the same `set`, `del` and, optionally, `eval`.
 */
export interface RedisLikeClient {
  set(key: string, value: string, px: "PX", ttlMs: number, nx: "NX"): Promise<"OK" | null | string>;
  del(key: string): Promise<number>;
  /** Used to undo a claim that missed its deadline but may still reach Redis later (see `timeoutMs`). */
  eval?(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/** Options of {@link createRedisReplayStore}. */
export interface RedisReplayStoreOptions {
  /** An ioredis-compatible client, connected or connecting. */
  client: RedisLikeClient;
  /** Prefix of every key (default `promo-review:webhook-id:`), to share a database safely. */
  prefix?: string;
  /**
   * How long one claim or release may take (default 1000 ms). Past it the call fails with
   * `REPLAY_STORE_FAILED` and the delivery is not processed (the sender retries): without it a client
   * with ioredis's defaults holds each delivery for about ten seconds while Redis is down.
   */
  timeoutMs?: number;
}

// Deletes the key only if it still holds this claim's token: another receiver's claim stays.
const UNDO_CLAIM =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/**
 * A replay store in Redis, shared by every instance of a receiver: `SET key <token> PX ttl NX` claims
 * atomically (one winner among concurrent claims, expiry by Redis itself), `DEL` releases. Each call
 * has a deadline and fails closed: a store that does not answer lets no delivery through.
 */
export function createRedisReplayStore(options: RedisReplayStoreOptions): ReplayStore {
  const prefix = options.prefix ?? "promo-review:webhook-id:";
  const timeoutMs = storeTimeoutMs(options.timeoutMs);
  const { client } = options;
  return {
    async claim(id, ttlMs) {
      const key = prefix + id;
      const token = crypto.randomUUID();
      // PX takes an integer of at least 1.
      const set = client.set(key, token, "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
      try {
        return (await withinDeadline(set, timeoutMs, "Redis", `claim ${id}`)) === "OK";
      } catch (error) {
        // The command may still be queued in the client (ioredis's offline queue) and succeed once Redis
        // is back: the sender would then find its retry refused as a replay and the event lost. The undo,
        // queued behind it on the same connection, removes that late claim and only that one.
        client.eval?.(UNDO_CLAIM, 1, key, token).catch(() => {});
        set.catch(() => {});
        throw error;
      }
    },
    async release(id) {
      const del = client.del(prefix + id);
      del.catch(() => {});
      await withinDeadline(del, timeoutMs, "Redis", `release ${id}`);
    },
  };
}
