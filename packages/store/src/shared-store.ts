import { PromoReviewError } from "@promo-review/errors";
import type { StoreAdapter, StoreCall, StoreFamily } from "./adapter.js";
import { STORE_CODES } from "./codes.js";
import { MemoryStore } from "./memory-store.js";
import type { Store } from "./store.js";
import type { Decision, StoreWindow } from "./window.js";

/** What every store shared between processes takes: its deadline, and what to do when it is unreachable. */
export interface SharedStoreOptions {
  /**
   * When the backend does not answer (an error, or nothing within `timeoutMs`):
   * - `"closed"` (default): the call fails with a retryable error (`BUDGET_STORE_UNAVAILABLE`,
   *   `REPLAY_STORE_FAILED` or `RESUME_STORE_UNAVAILABLE`, by what it served): no request is sent that
   *   the shared budget did not admit, no delivery processed that was not claimed, no upload started
   *   that another process may hold.
   * - `"open"`: the call is served by this process's own memory until the backend answers again. Each
   *   process keeps to the limits on its own, but processes together may exceed them (and see 429s);
   *   a delivery may be processed by two receivers; an upload may not resume in another process.
   */
  whenUnavailable?: "closed" | "open" | undefined;
  /**
   * How long to wait for the backend per call. Default 1000 ms. It bounds the wait whatever the
   * client does meanwhile: with ioredis's defaults a command to a Redis that is down waits about ten
   * seconds before the client itself gives up. Only the call that finds the backend gone waits this
   * long: until it answers again, later calls for that key fail (closed or open) at once.
   */
  timeoutMs?: number | undefined;
  /**
   * While the backend is down, how often to ask it again: one cheap probe at a time (see
   * {@link StoreAdapter.probe}), which nobody waits on; without probes, the first call this long
   * after the last failure asks. Default 1000 ms.
   */
  recheckMs?: number | undefined;
  /** Told about every failure to reach the backend, in either mode (for logs and metrics). */
  onError?: ((error: unknown) => void) | undefined;
}

/** A key whose backend is known to be unreachable. */
interface Down {
  error: unknown;
  probing: Promise<unknown> | undefined;
  probedAt: number;
}

/** The most keys remembered as down at once: claims name a new key per delivery. */
const MAX_DOWN_KEYS = 1024;

/** The call of an undo: nobody waits on it (made per call: nothing is allocated at import). */
function unwaited(): StoreCall {
  return { signal: new AbortController().signal, notAfter: Number.POSITIVE_INFINITY };
}

/** Calls `send`, turning a synchronous throw into a rejection (a client that throws must not break a call). */
function rejectionOf<T>(send: () => Promise<T>): Promise<T> {
  try {
    return send();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** What a failed call was doing, for the fail-closed error. */
const DOING: Record<StoreFamily, (key: string) => string> = {
  window: () => "The shared rate budget",
  claim: (key) => `The claim of ${key}`,
  value: (key) => `The resume point ${key}`,
};
const LOST: Record<StoreFamily, string> = {
  window: "the request was not sent",
  claim: "the delivery was not processed",
  value: "the upload did not go on",
};

/**
 * A {@link Store} over a {@link StoreAdapter}: a deadline on every call, a pause in asking after a
 * failure with one probe at a time, and the fail-closed or fail-open rule of
 * {@link SharedStoreOptions.whenUnavailable}. The one place those rules are written, for every
 * backend and every package.
 */
class SharedStore implements Store {
  readonly where: string;
  readonly #adapter: StoreAdapter;
  readonly #whenUnavailable: "closed" | "open";
  readonly #timeoutMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #recheckMs: number;
  /**
   * The keys whose backend is known to be unreachable, by family and key: on a Redis Cluster each
   * key's master fails alone, and the others' keys carry on.
   */
  readonly #down = new Map<string, Down>();
  /** The token of each claim this store made and has not released, so a release removes only its own. */
  readonly #mine = new Map<string, { token: string; expiresAt: number }>();
  #fallback: MemoryStore | undefined;
  readonly #id = crypto.randomUUID();
  #seq = 0;

  constructor(adapter: StoreAdapter, options: SharedStoreOptions) {
    this.#adapter = adapter;
    this.where = adapter.where;
    this.#whenUnavailable = options.whenUnavailable ?? "closed";
    this.#timeoutMs = options.timeoutMs ?? 1000;
    // A timer cannot hold 2^31 ms or more (it would fire at once), and 0 would refuse every call.
    if (!(this.#timeoutMs > 0 && this.#timeoutMs < 2 ** 31)) {
      throw new RangeError(`timeoutMs must be a positive number of ms below 2^31, got ${this.#timeoutMs}`);
    }
    this.#onError = options.onError;
    this.#recheckMs = options.recheckMs ?? 1000;
  }

  /**
   * One call under the deadline. While the key's backend is known to be down nothing waits: the call
   * fails at once, and one probe at a time finds out when it is back. `undo` is sent when the call
   * fails, in case it still reaches the backend later.
   */
  async #run<T>(
    family: StoreFamily,
    key: string,
    send: (call: StoreCall) => Promise<T>,
    undo?: () => Promise<unknown>,
  ): Promise<T> {
    const id = `${family}:${key}`;
    const down = this.#down.get(id);
    if (down !== undefined && (down.probing !== undefined || Date.now() - down.probedAt < this.#recheckMs)) {
      this.#probe(family, key, down);
      throw down.error;
    }
    // Up, or its last probe failed over `recheckMs` ago: this call asks, under its deadline.
    try {
      const answer = await this.#ask(send);
      this.#down.delete(id);
      return answer;
    } catch (error) {
      if (undo !== undefined) rejectionOf(undo).catch(() => {});
      const marked: Down = { error, probing: undefined, probedAt: Number.NEGATIVE_INFINITY };
      this.#down.delete(id);
      this.#down.set(id, marked);
      if (this.#down.size > MAX_DOWN_KEYS) this.#down.delete(this.#down.keys().next().value!);
      this.#onError?.(error);
      this.#probe(family, key, marked);
      throw error;
    }
  }

  /**
   * While the backend is down, one cheap call at a time, without the deadline. A probe unanswered for
   * `recheckMs` is replaced by the next call's; once one has failed, or without probes, the next call
   * `recheckMs` after the last ask goes to the backend itself.
   */
  #probe(family: StoreFamily, key: string, down: Down): void {
    const now = Date.now();
    if (now - down.probedAt < this.#recheckMs) return;
    down.probedAt = now;
    const { probe } = this.#adapter;
    if (probe === undefined) return;
    const probing = rejectionOf(() => probe.call(this.#adapter, family, key));
    down.probing = probing;
    const id = `${family}:${key}`;
    probing.then(
      () => {
        if (this.#down.get(id) === down) this.#down.delete(id);
      },
      () => {
        if (down.probing === probing) down.probing = undefined;
      },
    );
  }

  async #ask<T>(send: (call: StoreCall) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`${this.where} did not answer within ${this.#timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, this.#timeoutMs);
    });
    try {
      const call: StoreCall = { signal: controller.signal, notAfter: Date.now() + this.#timeoutMs };
      return await Promise.race([rejectionOf(() => send(call)), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The fallback when failing open; the fail-closed error otherwise. */
  #unavailable(family: StoreFamily, key: string, error: unknown): MemoryStore {
    if (this.#whenUnavailable === "closed") {
      throw new PromoReviewError({
        code: STORE_CODES[family],
        message: `${DOING[family](key)} (${this.where}) is unreachable (an error, or no answer within ${this.#timeoutMs} ms) and the store fails closed; ${LOST[family]}`,
        retryable: true,
        cause: error,
      });
    }
    this.#fallback ??= new MemoryStore();
    return this.#fallback;
  }

  /** See {@link Store.take}. */
  async take(key: string, windows: readonly StoreWindow[], ticket?: string): Promise<Decision> {
    // Every admission needs a member unique across processes, ticket or not.
    const member = ticket ?? `${this.#id}:${++this.#seq}`;
    const adapter = this.#adapter;
    const { forget } = adapter;
    try {
      return await this.#run(
        "window",
        key,
        (call) => adapter.take(key, windows, member, ticket !== undefined, call),
        forget && (() => forget.call(adapter, key, windows, member, unwaited())),
      );
    } catch (error) {
      return this.#unavailable("window", key, error).take(key, windows);
    }
  }

  /** See {@link Store.settle}. */
  async settle(key: string, windows: readonly StoreWindow[], ticket: string): Promise<void> {
    try {
      await this.#run("window", key, (call) => this.#adapter.settle(key, windows, ticket, call));
    } catch (error) {
      // Fail-open admissions live in the fallback; fail-closed has nothing to settle.
      if (this.#whenUnavailable === "open") this.#fallback?.settle(key, windows, ticket);
      else this.#onError?.(error);
    }
  }

  /** See {@link Store.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    try {
      await this.#run("window", key, (call) => this.#adapter.pause(key, ms, call));
    } catch (error) {
      this.#unavailable("window", key, error).pause(key, ms);
    }
  }

  /** See {@link Store.claim}. */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    const adapter = this.#adapter;
    const token = crypto.randomUUID();
    const at = Date.now();
    for (const [k, mine] of this.#mine) {
      if (mine.expiresAt > at) break;
      this.#mine.delete(k);
    }
    try {
      const won = await this.#run(
        "claim",
        key,
        (call) => adapter.claim(key, token, ttlMs, call),
        // A claim recorded after its caller gave up would turn the sender's retry into a "replay":
        // the undo, sent after it, removes that claim and only that one.
        () => adapter.unclaim(key, token, unwaited()),
      );
      if (won) {
        this.#mine.delete(key);
        this.#mine.set(key, { token, expiresAt: at + ttlMs });
      }
      return won;
    } catch (error) {
      return this.#unavailable("claim", key, error).claim(key, ttlMs);
    }
  }

  /** See {@link Store.release}. */
  async release(key: string): Promise<void> {
    const token = this.#mine.get(key)?.token;
    this.#mine.delete(key);
    try {
      await this.#run("claim", key, (call) => this.#adapter.unclaim(key, token, call));
    } catch (error) {
      await this.#unavailable("claim", key, error).release(key);
    }
  }

  /** See {@link Store.get}. */
  async get(key: string): Promise<string | undefined> {
    try {
      return await this.#run("value", key, (call) => this.#adapter.get(key, call));
    } catch (error) {
      return this.#unavailable("value", key, error).get(key);
    }
  }

  /** See {@link Store.set}. */
  async set(key: string, value: string, ttlMs: number): Promise<void> {
    try {
      await this.#run("value", key, (call) => this.#adapter.set(key, value, ttlMs, call));
    } catch (error) {
      await this.#unavailable("value", key, error).set(key, value, ttlMs);
    }
  }

  /** See {@link Store.delete}. */
  async delete(key: string): Promise<void> {
    try {
      await this.#run("value", key, (call) => this.#adapter.delete(key, call));
    } catch (error) {
      await this.#unavailable("value", key, error).delete(key);
    }
  }

  /** See {@link Store.swap}: fails closed in either mode (one process's memory cannot keep its promise). */
  swap: NonNullable<Store["swap"]> = async (key, expected, value, ttlMs) => {
    const adapter = this.#adapter;
    const { swap } = adapter;
    if (swap === undefined) {
      throw new TypeError(`This ${this.where} adapter has no swap (compare-and-set of a value)`);
    }
    try {
      return await this.#run("value", key, (call) => swap.call(adapter, key, expected, value, ttlMs, call));
    } catch (error) {
      throw new PromoReviewError({
        code: STORE_CODES.swap,
        message: `The compare-and-set of ${key} (${this.where}) did not answer (an error, or no answer within ${this.#timeoutMs} ms); it may or may not have been made, and is never served from memory`,
        retryable: true,
        cause: error,
      });
    }
  };
}

/**
 * The one helper every backend goes through: a {@link Store} over `adapter` whose every call has a
 * deadline (`timeoutMs`), whose keys found unreachable fail at once until a probe finds the backend
 * back, and which fails closed (a retryable error) or open (this process's memory) as chosen. Write an
 * adapter for any backend and pass its result wherever a store is taken.
 * @param adapter the backend (see {@link StoreAdapter}).
 * @param options see {@link SharedStoreOptions}.
 */
export function sharedStore(adapter: StoreAdapter, options: SharedStoreOptions = {}): Store {
  return new SharedStore(adapter, options);
}
