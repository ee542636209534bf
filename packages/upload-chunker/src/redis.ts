/**
 * The Redis resume store under its old name: `redisResumeStore({ client })` is now `redisStore(client)`
 * from `@promo-review/store/redis` (or `@promo-review/sdk/redis`) passed as `createUploader({ store })`,
 * one store for the resume points, the budget and the webhook claims. Kept for one minor release.
 * @packageDocumentation
 */
import { type RedisStoreClient, redisStore } from "@promo-review/store/redis";
import { kitResumeStore } from "./kit-resume-store.js";
import { RESUME_STORE_UNAVAILABLE } from "./resume-store.js";
import type { ResumeStore } from "./types.js";

/**
 * The part of a Redis client the store uses; an ioredis `Redis` or `Cluster` satisfies it.
 * @deprecated use `RedisStoreClient` from `@promo-review/store/redis`.
 */
export interface RedisResumeClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, expiryMode: "EX", seconds: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

/**
 * Options of {@link redisResumeStore}.
 * @deprecated use `redisStore(client, options)` from `@promo-review/store/redis`.
 */
export interface RedisResumeStoreOptions {
  /** A connected client, e.g. `new Redis(url)` from ioredis. The store never closes it. */
  client: RedisResumeClient;
  /** Prefix of every key the store writes. Default `"promo-review:upload:"`. */
  prefix?: string;
  /** How long an entry outlives its last write. Default 7 days. */
  ttlSeconds?: number;
  /** How long to wait for Redis per operation. Default 2000 ms. */
  timeoutMs?: number;
  /** Told about a failed `delete` (which does not fail the finished upload; the entry expires). */
  onError?: (error: unknown) => void;
}

export { RESUME_STORE_UNAVAILABLE };

/**
 * A resume store in Redis: `redisStore(client)` under its old name, one key per fingerprint (its
 * SHA-256), JSON, with a TTL renewed at every write. A `get` or `set` that fails or times out fails
 * closed with a retryable `RESUME_STORE_UNAVAILABLE` error.
 * @deprecated use `redisStore(client)` from `@promo-review/store/redis` (or `@promo-review/sdk/redis`)
 * and pass it as `createUploader({ store })`.
 */
export function redisResumeStore(options: RedisResumeStoreOptions): ResumeStore {
  // Values use GET, SET PX and DEL: any ioredis client has them.
  const store = redisStore(options.client as unknown as RedisStoreClient, {
    timeoutMs: options.timeoutMs ?? 2000,
    prefixes: { value: options.prefix },
  });
  return kitResumeStore(store, {
    ttlMs: (options.ttlSeconds ?? 7 * 24 * 60 * 60) * 1000,
    onError: options.onError ?? (() => {}),
  });
}
