/**
 * The Redis store: the budget, the webhook claims and the upload resume points of every process (and
 * machine) using the same Redis or Redis Cluster. On a sub-path export so that the main entry stays
 * free of it; it imports no Redis client: pass an ioredis `Redis` or `Cluster` (or anything with the
 * same `evalsha`, `eval`, `set`, `get` and `del`).
 * @packageDocumentation
 */
import type { StoreAdapter, StoreFamily } from "./adapter.js";
import {
  BUDGET_SCRIPT,
  budgetArgs,
  budgetKeys,
  PROBE_SCRIPT,
  SWAP_SCRIPT,
  swapAnswer,
  swapArgs,
  takeDecision,
} from "./redis-script.js";
import { type SharedStoreOptions, sharedStore } from "./shared-store.js";
import type { Store } from "./store.js";
import type { StoreWindow } from "./window.js";

export type { SharedStoreOptions } from "./shared-store.js";

/** The part of a Redis client the store uses; an ioredis `Redis` or `Cluster` (5 or 6) satisfies it. */
export interface RedisStoreClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  set(key: string, value: string, px: "PX", ms: number, nx: "NX"): Promise<unknown>;
  set(key: string, value: string, px: "PX", ms: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<unknown>;
}

/** Prefixes of the keys the store writes, one per kind of state. */
export interface RedisStorePrefixes {
  /** The budget's windows and pause (default `"promo-review:rate-budget:"`). */
  window?: string | undefined;
  /** Webhook claims (default `"promo-review:webhook-id:"`). */
  claim?: string | undefined;
  /** Upload resume points (default `"promo-review:upload:"`). */
  value?: string | undefined;
}

/** Options of {@link redisStore}: the deadline and outage options of every shared store, and key prefixes. */
export interface RedisStoreOptions extends SharedStoreOptions {
  /**
   * Prefixes of every key, to share a database safely. The defaults are the keys the packages' own
   * Redis stores wrote, so processes on the old and the new stores share one state while you move.
   */
  prefixes?: RedisStorePrefixes | undefined;
}

/** The default prefixes, one per family. */
export const REDIS_PREFIXES: Required<RedisStorePrefixes> = {
  window: "promo-review:rate-budget:",
  claim: "promo-review:webhook-id:",
  value: "promo-review:upload:",
};

// Deletes the key only if it still holds this claim's token: another receiver's claim stays.
const UNDO_CLAIM =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/** SHA-1 of the script for EVALSHA, with Web Crypto so that this file needs no Node built-in either. */
async function sha1(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The adapter: the budget by one atomic Lua script per decision (EVALSHA, EVAL the first time a
 * server sees it) on Redis's clock, a claim by `SET key token PX ttl NX`, a value by `SET ... PX`.
 * Hash tags (`{key}`) keep one budget key's entries in one Redis Cluster slot.
 */
export function redisAdapter(client: RedisStoreClient, prefixes: RedisStorePrefixes = {}): StoreAdapter {
  const prefix = { ...REDIS_PREFIXES, ...prefixes } as Required<RedisStorePrefixes>;
  for (const family of ["window", "claim", "value"] as const) prefix[family] ??= REDIS_PREFIXES[family];
  let sha: Promise<string> | undefined;
  const windowKeys = (key: string, windows: readonly StoreWindow[]) =>
    budgetKeys(prefix.window, key, windows);
  async function script(keys: string[], args: (string | number)[], signal?: AbortSignal): Promise<unknown> {
    let answer: unknown;
    try {
      sha ??= sha1(BUDGET_SCRIPT);
      answer = await client.evalsha(await sha, keys.length, ...keys, ...args);
    } catch (error) {
      // First use on this server (or after SCRIPT FLUSH, or a restart): EVAL loads the script for next
      // time. Not for a call past its deadline: its caller has gone, and a late EVAL would take behind
      // the undo's back.
      if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT") || signal?.aborted)
        throw error;
      answer = await client.eval(BUDGET_SCRIPT, keys.length, ...keys, ...args);
    }
    return answer;
  }
  const keyOf = (family: StoreFamily, key: string) =>
    family === "window" ? windowKeys(key, [])[0]! : prefix[family] + key;
  return {
    where: "Redis",
    async take(key, windows, member, ticketed, { signal }) {
      const args = budgetArgs(["take", member, ticketed ? 1 : 0], windows);
      return takeDecision(await script(windowKeys(key, windows), args, signal), windows);
    },
    async settle(key, windows, ticket, { signal }) {
      await script(windowKeys(key, windows), budgetArgs(["settle", ticket, 1], windows), signal);
    },
    async pause(key, ms, { signal }) {
      await script(windowKeys(key, []), ["pause", ms], signal);
    },
    // Queued behind the failed take on the same connection, so it runs after it if that ever runs.
    forget: (key, windows, member) => script(windowKeys(key, windows), ["forget", member]),
    async claim(key, token, ttlMs) {
      // PX takes an integer of at least 1.
      return (
        (await client.set(keyOf("claim", key), token, "PX", Math.max(1, Math.ceil(ttlMs)), "NX")) === "OK"
      );
    },
    async unclaim(key, token) {
      // The undo is queued behind the claim on the same connection: it removes that late claim only.
      if (token === undefined) await client.del(keyOf("claim", key));
      else await client.eval(UNDO_CLAIM, 1, keyOf("claim", key), token);
    },
    async get(key) {
      return (await client.get(keyOf("value", key))) ?? undefined;
    },
    async set(key, value, ttlMs) {
      await client.set(keyOf("value", key), value, "PX", Math.max(1, Math.ceil(ttlMs)));
    },
    async delete(key) {
      await client.del(keyOf("value", key));
    },
    // EVAL: a journal swaps a few times a second at most, so loading the script is not worth a step.
    swap: async (key, expected, value, ttlMs) =>
      swapAnswer(
        await client.eval(SWAP_SCRIPT, 1, keyOf("value", key), ...swapArgs(expected, value, ttlMs)),
        "Redis",
      ),
    // EVAL (nothing to load after a restart) on the key itself, so a Redis Cluster routes it to the
    // node holding the key; the client holds it until it reaches Redis.
    probe: (family, key) => client.eval(PROBE_SCRIPT, 1, keyOf(family, key)),
  };
}

/**
 * The budget, the webhook claims and the upload resume points in Redis or a Redis Cluster, shared by
 * every process using it: one atomic script per budget decision, one `SET NX PX` per claim, one
 * `GET`/`SET PX`/`DEL` per resume point. Every call has a deadline (`timeoutMs`, default 1000 ms: with
 * ioredis's defaults a command to a Redis that is down waits about ten seconds) and fails closed
 * unless `whenUnavailable: "open"`.
 * @param client a connected ioredis `Redis` or `Cluster`; the store never closes it.
 */
export function redisStore(client: RedisStoreClient, options: RedisStoreOptions = {}): Store {
  return sharedStore(redisAdapter(client, options.prefixes), options);
}
