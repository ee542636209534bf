/**
 * The Redis store under its old name: `new RedisStore({ client })` is now `redisStore(client)` from
 * `@promo-review/store/redis` (or `@promo-review/sdk/redis`), one store for the budget, the webhook
 * claims and the upload resume points. Kept for one minor release.
 * @packageDocumentation
 */
import type { Store } from "@promo-review/store";
import { type RedisStoreClient, redisStore, type SharedStoreOptions } from "@promo-review/store/redis";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";

export type { SharedStoreOptions } from "@promo-review/store/redis";

/**
 * The part of a Redis client the budget uses; an ioredis `Redis` or `Cluster` satisfies it.
 * @deprecated use `RedisStoreClient` from `@promo-review/store/redis`.
 */
export type RedisScriptClient = Pick<RedisStoreClient, "evalsha" | "eval">;

/**
 * Options of {@link RedisStore}; `timeoutMs` and the rest are {@link SharedStoreOptions}.
 * @deprecated use `redisStore(client, options)` from `@promo-review/store/redis`.
 */
export interface RedisStoreOptions extends SharedStoreOptions {
  /** A connected client, e.g. `new Redis(url)` from ioredis. The store never closes it. */
  client: RedisScriptClient;
  /** Prefix of every key the store writes. Default `"promo-review:rate-budget:"`. */
  prefix?: string;
}

/**
 * Budgets in Redis: `redisStore(client, { prefixes: { window: prefix } })` under its old name.
 * @deprecated use `redisStore(client)` from `@promo-review/store/redis` (or `@promo-review/sdk/redis`)
 * and pass it as `store`; it serves the webhook claims and the upload resume points too.
 */
export class RedisStore implements BudgetStore {
  readonly #store: Store;

  /** @param options see {@link RedisStoreOptions}. */
  constructor(options: RedisStoreOptions) {
    // The budget's calls are scripts only: a client with just `evalsha` and `eval` still serves it.
    this.#store = redisStore(options.client as RedisStoreClient, {
      ...options,
      prefixes: { window: options.prefix },
    });
  }

  /** See {@link BudgetStore.take}. */
  take(key: string, windows: readonly WindowSpec[], ticket?: string): Promise<Decision> {
    return this.#store.take(key, windows, ticket) as Promise<Decision>;
  }

  /** See {@link BudgetStore.settle}. */
  async settle(key: string, windows: readonly WindowSpec[], ticket: string): Promise<void> {
    await this.#store.settle(key, windows, ticket);
  }

  /** See {@link BudgetStore.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    await this.#store.pause(key, ms);
  }
}
