/**
 * The Redis store: one key's budgets shared by every process (and machine) that uses the same Redis
 * and `keyId`. On a sub-path export so that the main entry stays free of it; it imports no Redis
 * client: pass an ioredis client (or anything with the same `evalsha`/`eval`).
 * @packageDocumentation
 */
import { PromoReviewError } from "@promo-review/errors";
import { BUDGET_CODES } from "./errors.js";
import { MemoryStore } from "./memory-store.js";
import { BUDGET_SCRIPT } from "./redis-script.js";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";

/** The part of a Redis client the store uses; an ioredis `Redis` or `Cluster` satisfies it. */
export interface RedisScriptClient {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** A connected client, e.g. `new Redis(url)` from ioredis. The store never closes it. */
  client: RedisScriptClient;
  /** Prefix of every key the store writes. Default `"promo-review:rate-budget:"`. */
  prefix?: string;
  /**
   * When Redis does not answer (error, or nothing within `timeoutMs`):
   * - `"closed"` (default): the request is refused with a retryable `BUDGET_STORE_UNAVAILABLE`
   *   error. Nothing is sent that the shared budget did not admit.
   * - `"open"`: the process falls back to its own in-memory budget until Redis answers again. Each
   *   process keeps to the limits on its own, but processes sharing the key may together exceed them
   *   (and see 429s, which still pause them).
   */
  whenUnavailable?: "closed" | "open";
  /**
   * How long to wait for Redis per call (take, settle, pause). Default 1000 ms. It bounds the wait
   * whatever the client does meanwhile: with ioredis's defaults a command to a Redis that is down
   * waits about ten seconds before the client itself gives up.
   */
  timeoutMs?: number;
  /**
   * After a failure, how long to treat Redis as down before asking it again, so that requests meanwhile
   * do not each wait `timeoutMs`. Default 1000 ms.
   */
  recheckMs?: number;
  /** Told about every failure to reach Redis, in either mode (for logs and metrics). */
  onError?: (error: unknown) => void;
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
  readonly #whenUnavailable: "closed" | "open";
  readonly #timeoutMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #recheckMs: number;
  #downUntil = 0;
  #lastError: unknown;
  #sha: Promise<string> | undefined;
  #fallback: MemoryStore | undefined;
  readonly #id = crypto.randomUUID();
  #seq = 0;

  /** @param options see {@link RedisStoreOptions}. */
  constructor(options: RedisStoreOptions) {
    this.#client = options.client;
    this.#prefix = options.prefix ?? "promo-review:rate-budget:";
    this.#whenUnavailable = options.whenUnavailable ?? "closed";
    this.#timeoutMs = options.timeoutMs ?? 1000;
    // A timer cannot hold 2^31 ms or more (it would fire at once), and 0 would refuse every decision.
    if (!(this.#timeoutMs > 0 && this.#timeoutMs < 2 ** 31)) {
      throw new RangeError(`timeoutMs must be a positive number of ms below 2^31, got ${this.#timeoutMs}`);
    }
    this.#onError = options.onError;
    this.#recheckMs = options.recheckMs ?? 1000;
  }

  #keys(key: string, windows: readonly WindowSpec[]): string[] {
    const base = `${this.#prefix}{${key}}:`;
    return [`${base}pause`, ...windows.map((w) => `${base}w:${w.id}`)];
  }

  async #run(keys: string[], args: (string | number)[]): Promise<unknown[]> {
    if (Date.now() < this.#downUntil) throw this.#lastError;
    try {
      return await this.#ask(keys, args);
    } catch (error) {
      this.#downUntil = Date.now() + this.#recheckMs;
      this.#lastError = error;
      this.#onError?.(error);
      throw error;
    }
  }

  async #ask(keys: string[], args: (string | number)[]): Promise<unknown[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer within ${this.#timeoutMs} ms`)),
        this.#timeoutMs,
      );
    });
    const call = async (): Promise<unknown> => {
      try {
        this.#sha ??= sha1(BUDGET_SCRIPT);
        return await this.#client.evalsha(await this.#sha, keys.length, ...keys, ...args);
      } catch (error) {
        // First use on this server (or after SCRIPT FLUSH): EVAL loads the script for next time.
        if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT")) throw error;
        return this.#client.eval(BUDGET_SCRIPT, keys.length, ...keys, ...args);
      }
    };
    try {
      const answer = await Promise.race([call(), timeout]);
      if (!Array.isArray(answer))
        throw new Error(`unexpected answer from the budget script: ${String(answer)}`);
      return answer;
    } finally {
      clearTimeout(timer);
    }
  }

  #unavailable(error: unknown): MemoryStore {
    if (this.#whenUnavailable === "closed") {
      throw new PromoReviewError({
        code: BUDGET_CODES.storeUnavailable,
        message:
          "The shared rate budget (Redis) is unreachable and the store fails closed; the request was not sent",
        retryable: true,
        cause: error,
      });
    }
    this.#fallback ??= new MemoryStore();
    return this.#fallback;
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
      return this.#unavailable(error).take(key, windows);
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
      // Fail-open admissions live in the fallback; fail-closed has nothing to settle.
      if (this.#whenUnavailable === "open") this.#fallback?.settle(key, windows, ticket);
      else this.#onError?.(error);
    }
  }

  /** See {@link BudgetStore.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    try {
      await this.#run(this.#keys(key, []), ["pause", ms]);
    } catch (error) {
      this.#unavailable(error).pause(key, ms);
    }
  }
}
