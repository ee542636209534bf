/**
 * The Redis replay store under its old name: `createRedisReplayStore({ client })` is now
 * `redisStore(client)` from `@promo-review/store/redis` (or `@promo-review/sdk/redis`), one store for
 * the webhook claims, the budget and the upload resume points. Kept for one minor release.
 * @packageDocumentation
 */
import { type RedisStoreClient, redisStore } from "@promo-review/store/redis";
import type { ReplayStore } from "./replay-store.js";

/**
 * The part of a Redis client the claims use. An `ioredis` client fits (it is an optional peer).
 * @deprecated use `RedisStoreClient` from `@promo-review/store/redis`.
 */
export interface RedisLikeClient {
  set(key: string, value: string, px: "PX", ttlMs: number, nx: "NX"): Promise<"OK" | null | string>;
  del(key: string): Promise<number>;
  /** Used to undo a claim that missed its deadline but may still reach Redis later (see `timeoutMs`). */
  eval?(script: string, numKeys: number, ...args: string[]): Promise<unknown>;
}

/**
 * Options of {@link createRedisReplayStore}.
 * @deprecated use `redisStore(client, options)` from `@promo-review/store/redis`.
 */
export interface RedisReplayStoreOptions {
  /** An ioredis-compatible client, connected or connecting. */
  client: RedisLikeClient;
  /** Prefix of every key (default `promo-review:webhook-id:`), to share a database safely. */
  prefix?: string;
  /**
   * How long one claim or release may take (default 1000 ms). Past it the call fails with
   * `REPLAY_STORE_FAILED` and the delivery is not processed (the sender retries).
   */
  timeoutMs?: number;
}

/**
 * A replay store in Redis: `redisStore(client, { prefixes: { claim: prefix } })` under its old name.
 * `SET key <token> PX ttl NX` claims atomically, a late claim is undone, each call has a deadline and
 * fails closed.
 * @deprecated use `redisStore(client)` from `@promo-review/store/redis` (or `@promo-review/sdk/redis`)
 * and pass it as `createWebhookVerifier({ store })`.
 */
export function createRedisReplayStore(options: RedisReplayStoreOptions): ReplayStore {
  const { client } = options;
  // Claims use SET NX PX, DEL and the undo script only; without `eval` a late claim is not undone.
  const full = {
    set: (key: string, value: string, px: "PX", ms: number, nx: "NX") => client.set(key, value, px, ms, nx),
    del: (key: string) => client.del(key),
    eval: (script: string, numKeys: number, ...args: string[]) =>
      client.eval ? client.eval(script, numKeys, ...args) : Promise.resolve(0),
  } as unknown as RedisStoreClient;
  return redisStore(full, { timeoutMs: options.timeoutMs, prefixes: { claim: options.prefix } });
}
