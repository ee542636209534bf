/**
 * The Redis store: one key's budgets shared by every process (and machine) that uses the same Redis
 * and `keyId`. On a sub-path export so that the main entry stays free of it; it imports no Redis
 * client: pass an ioredis client (or anything with the same `evalsha`/`eval`).
 * @packageDocumentation
 */
import { BUDGET_SCRIPT } from "./redis-script.js";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";
import { StoreAvailability, type UnavailableOptions } from "./store-availability.js";

/** The part of a Redis client the store uses; an ioredis `Redis` or `Cluster` satisfies it. */
export interface RedisScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Options of {@link RedisStore}; see {@link UnavailableOptions} for when Redis does not answer. */
export interface RedisStoreOptions extends UnavailableOptions {
  /** A connected client, e.g. `new Redis(url)` from ioredis. The store never closes it. */
  client: RedisScriptClient;
  /** Prefix of every key the store writes. Default `"promo-review:rate-budget:"`. */
  prefix?: string;
}

/** SHA-1 of the script for EVALSHA, with Web Crypto so that this file needs no Node built-in either. */
async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Budgets in Redis: one atomic Lua script per decision takes from every window that applies, on
 * Redis's clock. Window keys expire once idle for a window, so an idle key leaves nothing behind.
 * A pause after a 429 is stored too, so every process sharing the key pauses.
 * Hash tags (`{keyId}`) keep one key's entries in one Redis Cluster slot.
 */
export class RedisStore implements BudgetStore {
  readonly #client: RedisScriptClient;
  readonly #prefix: string;
  readonly #availability: StoreAvailability;
  #sha: Promise<string> | undefined;
  readonly #id = crypto.randomUUID();
  #seq = 0;

  /** @param options see {@link RedisStoreOptions}. */
  constructor(options: RedisStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "promo-review:rate-budget:";
    this.#availability = new StoreAvailability("Redis", options);
  }

  #keys(key: string, windows: readonly WindowSpec[]): string[] {
    const base = `${this.#prefix}{${key}}:`;
    return [`${base}pause`, ...windows.map((w) => `${base}w:${w.id}`)];
  }

  #run(keys: string[], args: (string | number)[]): Promise<unknown[]> {
    return this.#availability.run(() => this.#ask(keys, args));
  }

  async #ask(keys: string[], args: (string | number)[]): Promise<unknown[]> {
    let answer: unknown;
    try {
      this.#sha ??= sha1(BUDGET_SCRIPT);
      answer = await this.#client.evalsha(await this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      // First use on this server (or after SCRIPT FLUSH): EVAL loads the script for next time.
      if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT")) throw error;
      answer = await this.#client.eval(BUDGET_SCRIPT, keys.length, ...keys, ...args);
    }
    if (!Array.isArray(answer))
      throw new Error(`unexpected answer from the budget script: ${String(answer)}`);
    return answer;
  }

  /** See {@link BudgetStore.take}. */
  async take(key: string, windows: readonly WindowSpec[], ticket?: string): Promise<Decision> {
    // Every admission needs a member unique across processes, ticket or not.
    const member = ticket ?? `${this.#id}:${++this.#seq}`;
    const args: (string | number)[] = ["take", member, ticket === undefined ? 0 : 1];
    for (const w of windows) args.push(w.limit, w.windowMs, w.holdMs ?? 0);
    let answer: unknown[];
    try {
      answer = await this.#run(this.#keys(key, windows), args);
    } catch (error) {
      return this.#availability.unavailable(error).take(key, windows);
    }
    if (answer[0] === 1) return { ok: true };
    return {
      ok: false,
      waitMs: Number(answer[1]),
      paused: answer[2] === 1,
      full: answer.slice(3).map((index) => windows[Number(index) - 1]!.id),
    };
  }

  /** See {@link BudgetStore.settle}. */
  async settle(key: string, windows: readonly WindowSpec[], ticket: string): Promise<void> {
    const args: (string | number)[] = ["settle", ticket, 1];
    for (const w of windows) args.push(w.limit, w.windowMs, w.holdMs ?? 0);
    try {
      await this.#run(this.#keys(key, windows), args);
    } catch (error) {
      this.#availability.settleFailed(error, (fallback) => fallback.settle(key, windows, ticket));
    }
  }

  /** See {@link BudgetStore.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    try {
      await this.#run(this.#keys(key, []), ["pause", ms]);
    } catch (error) {
      this.#availability.unavailable(error).pause(key, ms);
    }
  }
}
export type { UnavailableOptions } from "./store-availability.js";
