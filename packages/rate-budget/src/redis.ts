/**
 * The Redis store: one key's budgets shared by every process (and machine) that uses the same Redis
 * and `keyId`. On a sub-path export so that the main entry stays free of it; it imports no Redis
 * client: pass an ioredis client (or anything with the same `evalsha`/`eval`).
 * @packageDocumentation
 */
import { BUDGET_SCRIPT, PROBE_SCRIPT } from "./redis-script.js";
import type { WindowSpec } from "./rules.js";
import { type RemoteBudget, SharedStore, type SharedStoreOptions } from "./shared-store.js";
import type { BudgetStore, Decision } from "./store.js";

export type { SharedStoreOptions } from "./shared-store.js";

/** The part of a Redis client the store uses; an ioredis `Redis` or `Cluster` satisfies it. */
export interface RedisScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Options of {@link RedisStore}; `timeoutMs` and the rest are {@link SharedStoreOptions}. */
export interface RedisStoreOptions extends SharedStoreOptions {
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

/** The budget script, run by EVALSHA (EVAL the first time a server sees it). */
function redisBudget(client: RedisScriptClient, prefix: string): RemoteBudget {
  let sha: Promise<string> | undefined;
  const keysOf = (key: string, windows: readonly WindowSpec[]) => {
    const base = `${prefix}{${key}}:`;
    return [`${base}pause`, ...windows.map((w) => `${base}w:${w.id}`)];
  };
  const windowArgs = (args: (string | number)[], windows: readonly WindowSpec[]) => {
    for (const w of windows) args.push(w.limit, w.windowMs, w.holdMs ?? 0);
    return args;
  };
  async function run(keys: string[], args: (string | number)[], signal?: AbortSignal): Promise<unknown[]> {
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
    if (!Array.isArray(answer))
      throw new Error(`unexpected answer from the budget script: ${String(answer)}`);
    return answer;
  }
  return {
    where: "Redis",
    async take(key, windows, member, ticketed, signal) {
      const args = windowArgs(["take", member, ticketed ? 1 : 0], windows);
      const answer = await run(keysOf(key, windows), args, signal);
      if (answer[0] === 1) return { ok: true };
      return {
        ok: false,
        waitMs: Number(answer[1]),
        paused: answer[2] === 1,
        full: answer.slice(3).map((index) => windows[Number(index) - 1]!.id),
      };
    },
    async settle(key, windows, ticket, signal) {
      await run(keysOf(key, windows), windowArgs(["settle", ticket, 1], windows), signal);
    },
    async pause(key, ms, signal) {
      await run(keysOf(key, []), ["pause", ms], signal);
    },
    // Queued behind the failed take on the same connection, so it runs after it if that ever runs.
    forget: (key, windows, member) => run(keysOf(key, windows), ["forget", member]),
    // EVAL (nothing to load after a restart) on the key's first key, so a Redis Cluster routes it to
    // the node holding the key; the client holds it until it reaches Redis.
    probe: (key) => client.eval(PROBE_SCRIPT, 1, keysOf(key, [])[0]!),
  };
}

/**
 * Budgets in Redis: one atomic Lua script per decision takes from every window that applies, on
 * Redis's clock. Window keys expire once idle for a window, so an idle key leaves nothing behind.
 * A pause after a 429 is stored too, so every process sharing the key pauses.
 * Hash tags (`{keyId}`) keep one key's entries in one Redis Cluster slot.
 */
export class RedisStore implements BudgetStore {
  readonly #shared: SharedStore;

  /** @param options see {@link RedisStoreOptions}. */
  constructor(options: RedisStoreOptions) {
    this.#shared = new SharedStore(
      redisBudget(options.client, options.prefix ?? "promo-review:rate-budget:"),
      options,
    );
  }

  /** See {@link BudgetStore.take}. */
  take(key: string, windows: readonly WindowSpec[], ticket?: string): Promise<Decision> {
    return this.#shared.take(key, windows, ticket);
  }

  /** See {@link BudgetStore.settle}. */
  settle(key: string, windows: readonly WindowSpec[], ticket: string): Promise<void> {
    return this.#shared.settle(key, windows, ticket);
  }

  /** See {@link BudgetStore.pause}. */
  pause(key: string, ms: number): Promise<void> {
    return this.#shared.pause(key, ms);
  }
}
