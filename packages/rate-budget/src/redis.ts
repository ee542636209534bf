/**
 * The Redis store: one key's budgets shared by every process (and machine) that uses the same Redis
 * and `keyId`. On a sub-path export so that the main entry stays free of it; it imports no Redis
 * client: pass an ioredis client (or anything with the same `evalsha`/`eval`).
 * @packageDocumentation
 */
import { PromoReviewError } from "@promo-review/errors";
import { BUDGET_CODES } from "./errors.js";
import { MemoryStore } from "./memory-store.js";
import { BUDGET_SCRIPT, PROBE_SCRIPT } from "./redis-script.js";
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
   * waits about ten seconds before the client itself gives up. Only the call that finds Redis gone
   * waits this long: until Redis answers again, later calls fail closed (or fall back) at once.
   */
  timeoutMs?: number;
  /**
   * While Redis is down, how often to ask it again: one cheap probe at a time, which nobody waits on
   * and which the client holds until it reaches Redis, so the store uses Redis again the moment the
   * client has reconnected. Default 1000 ms. How soon the client reconnects is its own setting
   * (ioredis: `retryStrategy`, whose default waits up to 2 s between attempts).
   */
  recheckMs?: number;
  /** Told about every failure to reach Redis, in either mode (for logs and metrics). */
  onError?: (error: unknown) => void;
}

/** A key whose Redis is known to be down. */
interface Down {
  error: unknown;
  probing: Promise<unknown> | undefined;
  probedAt: number;
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
  /**
   * The keys whose Redis is known to be down: the error that said so, and the probe asking again. By
   * key, because on a Redis Cluster each key's master fails alone: the others' keys carry on.
   */
  readonly #down = new Map<string, Down>();
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

  /**
   * One script call under the store's deadline. While Redis is known to be down, nothing waits: the
   * call fails at once, and one probe at a time (see `#probe`) finds out when it is back. `undo` is
   * sent when the call fails, in case the command still reaches Redis later.
   */
  async #run(
    key: string,
    keys: string[],
    args: (string | number)[],
    undo?: (string | number)[],
  ): Promise<unknown[]> {
    const down = this.#down.get(key);
    if (down !== undefined && (down.probing !== undefined || Date.now() - down.probedAt < this.#recheckMs)) {
      this.#probe(key, down, keys);
      throw down.error;
    }
    // Redis is up, or its last probe failed over `recheckMs` ago: this decision asks it, under its deadline.
    try {
      const answer = await this.#ask(keys, args);
      this.#down.delete(key);
      return answer;
    } catch (error) {
      // The command may sit in the client's offline queue (or be resent after a reconnect) and run
      // once Redis is back: an admission nobody uses, which would block the key for holdMs + a window.
      // The undo, queued behind it on the same connection, removes it.
      if (undo !== undefined) this.#send(keys, undo).catch(() => {});
      const marked: Down = { error, probing: undefined, probedAt: Number.NEGATIVE_INFINITY };
      this.#down.set(key, marked);
      this.#onError?.(error);
      this.#probe(key, marked, keys);
      throw error;
    }
  }

  /**
   * While Redis is down, one cheap command at a time, without the deadline: the client holds it until
   * it reaches Redis again (ioredis's offline queue), so its answer marks the moment Redis is back,
   * however long the outage and whatever the time of the next decision. A probe unanswered for
   * `recheckMs` is replaced by the next decision's; once one has failed (a client that gave up on
   * it), the next decision `recheckMs` after it started asks Redis itself.
   */
  #probe(key: string, down: Down, keys: string[]): void {
    const now = Date.now();
    if (now - down.probedAt < this.#recheckMs) return;
    down.probedAt = now;
    let probe: Promise<unknown>;
    try {
      probe = this.#client.eval(PROBE_SCRIPT, 1, keys[0]!);
    } catch (error) {
      // A client that throws rather than rejects must not break the decision that probes.
      probe = Promise.reject(error);
    }
    down.probing = probe;
    probe.then(
      () => {
        if (this.#down.get(key) === down) this.#down.delete(key);
      },
      () => {
        if (down.probing === probe) down.probing = undefined;
      },
    );
  }

  /** The budget script, by EVALSHA, loading it with EVAL on NOSCRIPT unless `abandoned()` by then. */
  async #send(keys: string[], args: (string | number)[], abandoned = () => false): Promise<unknown> {
    try {
      this.#sha ??= sha1(BUDGET_SCRIPT);
      return await this.#client.evalsha(await this.#sha, keys.length, ...keys, ...args);
    } catch (error) {
      // First use on this server (or after SCRIPT FLUSH, or a restart): EVAL loads the script for
      // next time. Not for a call past its deadline: its caller has gone, and a late EVAL would take
      // behind the undo's back.
      if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT") || abandoned()) throw error;
      return this.#client.eval(BUDGET_SCRIPT, keys.length, ...keys, ...args);
    }
  }

  async #ask(keys: string[], args: (string | number)[]): Promise<unknown[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let late = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Error(`Redis did not answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
    });
    const call = this.#send(keys, args, () => late);
    // Whatever the abandoned call answers later is of no use (and no unhandled rejection).
    call.catch(() => {});
    try {
      const answer = await Promise.race([call, timeout]);
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
      answer = await this.#run(key, this.#keys(key, windows), args, ["forget", member]);
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
      await this.#run(key, this.#keys(key, windows), args);
    } catch (error) {
      // Fail-open admissions live in the fallback; fail-closed has nothing to settle.
      if (this.#whenUnavailable === "open") this.#fallback?.settle(key, windows, ticket);
      else this.#onError?.(error);
    }
  }

  /** See {@link BudgetStore.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    try {
      await this.#run(key, this.#keys(key, []), ["pause", ms]);
    } catch (error) {
      this.#unavailable(error).pause(key, ms);
    }
  }
}
