/**
 * The Upstash store: the client's shared state (the exact budget, once-only webhook claims, upload
 * resume points) in Upstash Redis over its REST API, for runtimes that cannot open a TCP connection
 * (Vercel and Netlify edge functions). On a sub-path export so that the main entry stays free of it;
 * it imports no client: pass an `@upstash/redis` `Redis` (an optional peer dependency), or anything
 * with the same `createScript`, `set`, `del` and `ping`.
 *
 * It runs the Redis store's budget script (one source, `redis-script.ts`) on the Redis store's keys,
 * so a Node server on `redisStore` over Upstash's TCP endpoint and edge functions on this store share
 * one budget, one set of claims and one set of resume points.
 * @packageDocumentation
 */
import type { StoreAdapter } from "./adapter.js";
import { rememberingRefusals } from "./known-refusals.js";
import { REDIS_PREFIXES, type RedisStorePrefixes } from "./redis.js";
import {
  BUDGET_SCRIPT,
  budgetArgs,
  budgetKeys,
  SWAP_SCRIPT,
  swapAnswer,
  swapArgs,
  takeDecision,
} from "./redis-script.js";
import { type SharedStoreOptions, sharedStore } from "./shared-store.js";
import type { Store } from "./store.js";
import type { StoreWindow } from "./window.js";

export type { RedisStorePrefixes } from "./redis.js";
export type { SharedStoreOptions } from "./shared-store.js";

/** A script as `@upstash/redis` runs it (`redis.createScript`): EVALSHA, then EVAL on NOSCRIPT. */
export interface UpstashScript {
  exec(keys: string[], args: string[]): Promise<unknown>;
}

/**
 * The part of an `@upstash/redis` client the store uses: `new Redis({ url, token })` or
 * `Redis.fromEnv()` fits. The store never closes it.
 */
export interface UpstashRedisClient {
  createScript(script: string): UpstashScript;
  set(key: string, value: string, options: { px: number }): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  ping(): Promise<unknown>;
}

/** Options of {@link upstashStore}: the deadline and outage options of every shared store, and key prefixes. */
export interface UpstashStoreOptions extends SharedStoreOptions {
  /** Prefixes of every key, as the Redis store's (the same defaults, so both share one state). */
  prefixes?: RedisStorePrefixes | undefined;
}

/**
 * A claim only if its undo has not come first. Over HTTP nothing orders a late request behind a later
 * one: a claim that missed its deadline may reach Redis after its undo. The undo leaves a mark
 * (KEYS[2], named after the claim's token), and a claim finding it gives way.
 * KEYS[1] the claim, KEYS[2] its undo's mark; ARGV[1] the token, ARGV[2] the TTL in ms. Returns 1 if claimed.
 */
const CLAIM_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
return 0
`;

/**
 * The undo of a claim (and the release of this store's own): removes the claim if it still holds the
 * token (another receiver's claim stays), and leaves the mark {@link CLAIM_SCRIPT} gives way to.
 * KEYS[1] the claim, KEYS[2] the mark; ARGV[1] the token, ARGV[2] the mark's TTL in ms.
 */
const UNCLAIM_SCRIPT = `
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/**
 * A value read back behind a marker: `@upstash/redis` parses every answer that is JSON (a resume
 * point is), and nothing that starts with the marker parses, so the string comes back as written.
 * KEYS[1] the value; ARGV[1] the marker. Returns nil when none is set.
 */
const GET_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value then return ARGV[1] .. value end
return false
`;

/**
 * How long an undo's mark stays: longer than a late claim can take to arrive (held in the network,
 * then `@upstash/redis`'s own resends, about 4 s at its defaults).
 */
const UNDONE_TTL_MS = 10 * 60 * 1000;

/** The marker of {@link GET_SCRIPT}. */
const RAW = "=";

/** PX takes an integer of at least 1. */
const px = (ms: number) => String(Math.max(1, Math.ceil(ms)));

/**
 * The adapter over `redis`: one round trip per call (a script costs one more the first time a server
 * sees it: EVALSHA answers NOSCRIPT, then EVAL loads it), and none for a take that a refusal answered
 * in this process still answers (`known-refusals.ts`).
 */
export function upstashAdapter(redis: UpstashRedisClient, prefixes: RedisStorePrefixes = {}): StoreAdapter {
  const prefix: Required<RedisStorePrefixes> = {
    window: prefixes.window ?? REDIS_PREFIXES.window,
    claim: prefixes.claim ?? REDIS_PREFIXES.claim,
    value: prefixes.value ?? REDIS_PREFIXES.value,
  };
  // Made with the store, not at import: each computes its SHA-1 once.
  const budget = redis.createScript(BUDGET_SCRIPT);
  const claim = redis.createScript(CLAIM_SCRIPT);
  const unclaim = redis.createScript(UNCLAIM_SCRIPT);
  const get = redis.createScript(GET_SCRIPT);
  const swap = redis.createScript(SWAP_SCRIPT);
  const run = (key: string, windows: readonly StoreWindow[], args: (string | number)[]) =>
    budget.exec(budgetKeys(prefix.window, key, windows), args.map(String));
  const claimKeys = (key: string, token: string) => {
    const claimKey = prefix.claim + key;
    return [claimKey, `${claimKey}:undone:${token}`];
  };
  return rememberingRefusals({
    where: "Upstash",
    async take(key, windows, member, ticketed) {
      return takeDecision(
        await run(key, windows, budgetArgs(["take", member, ticketed ? 1 : 0], windows)),
        windows,
      );
    },
    async settle(key, windows, ticket) {
      await run(key, windows, budgetArgs(["settle", ticket, 1], windows));
    },
    async pause(key, ms) {
      await run(key, [], ["pause", ms]);
    },
    forget: (key, windows, member) => run(key, windows, ["forget", member]),
    async claim(key, token, ttlMs) {
      return Number(await claim.exec(claimKeys(key, token), [token, px(ttlMs)])) === 1;
    },
    async unclaim(key, token) {
      if (token === undefined) await redis.del(prefix.claim + key);
      else await unclaim.exec(claimKeys(key, token), [token, String(UNDONE_TTL_MS)]);
    },
    async get(key) {
      const answer = await get.exec([prefix.value + key], [RAW]);
      if (answer === null || answer === undefined) return undefined;
      if (typeof answer !== "string" || !answer.startsWith(RAW))
        throw new Error(`unexpected answer from Upstash for a value: ${String(answer)}`);
      return answer.slice(RAW.length);
    },
    async set(key, value, ttlMs) {
      await redis.set(prefix.value + key, value, { px: Number(px(ttlMs)) });
    },
    async delete(key) {
      await redis.del(prefix.value + key);
    },
    // The Redis store's script on its keys: one compare-and-set for both.
    swap: async (key, expected, value, ttlMs) =>
      swapAnswer(await swap.exec([prefix.value + key], swapArgs(expected, value, ttlMs)), "Upstash"),
    // Over HTTP nothing holds a command until the server is back: a cheap request, answered once it is.
    probe: () => redis.ping(),
  });
}

/**
 * The budget, the webhook claims and the upload resume points in Upstash Redis, over
 * `@upstash/redis`: pass it as `store` wherever a store is taken. Every call is one HTTP round trip
 * under a deadline (`timeoutMs`, default 1000 ms) and fails closed unless `whenUnavailable: "open"`.
 * @param redis an `@upstash/redis` client, e.g. `Redis.fromEnv()`; the store never closes it.
 * @param options see {@link UpstashStoreOptions}.
 */
export function upstashStore(redis: UpstashRedisClient, options: UpstashStoreOptions = {}): Store {
  return sharedStore(upstashAdapter(redis, options.prefixes), options);
}
