import { PromoReviewError } from "@promo-review/errors";
import { BUDGET_CODES } from "./errors.js";
import { MemoryStore } from "./memory-store.js";
import type { WindowSpec } from "./rules.js";
import type { BudgetStore, Decision } from "./store.js";

/** Options every store shared between processes takes (Redis, Durable Objects): what to do when it is unreachable. */
export interface SharedStoreOptions {
  /**
   * When the shared store does not answer (error, or nothing within `timeoutMs`):
   * - `"closed"` (default): the request is refused with a retryable `BUDGET_STORE_UNAVAILABLE`
   *   error. Nothing is sent that the shared budget did not admit.
   * - `"open"`: the process falls back to its own in-memory budget until the store answers again.
   *   Each process keeps to the limits on its own, but processes sharing the key may together exceed
   *   them (and see 429s, which still pause them).
   */
  whenUnavailable?: "closed" | "open" | undefined;
  /**
   * How long to wait for the store per call (take, settle, pause). Default 1000 ms. It bounds the wait
   * whatever the client does meanwhile: with ioredis's defaults a command to a Redis that is down
   * waits about ten seconds before the client itself gives up.
   */
  timeoutMs?: number | undefined;
  /**
   * After a failure, how long to treat the store as down before asking it again, so that requests
   * meanwhile do not each wait `timeoutMs`. Default 1000 ms.
   */
  recheckMs?: number | undefined;
  /** Told about every failure to reach the store, in either mode (for logs and metrics). */
  onError?: ((error: unknown) => void) | undefined;
}

/** The remote half of a shared store: asks the one place that decides (a Redis script, a Durable Object). */
export interface RemoteBudget {
  /** Where the budget lives, for messages ("Redis", "Durable Object"). */
  readonly where: string;
  /** Takes one admission recorded as `member` (the ticket when `ticketed`). `signal` fires at the deadline. */
  take(
    key: string,
    windows: readonly WindowSpec[],
    member: string,
    ticketed: boolean,
    signal: AbortSignal,
  ): Promise<Decision>;
  /** See {@link BudgetStore.settle}. */
  settle(key: string, windows: readonly WindowSpec[], ticket: string, signal: AbortSignal): Promise<void>;
  /** See {@link BudgetStore.pause}. */
  pause(key: string, ms: number, signal: AbortSignal): Promise<void>;
}

/**
 * A {@link BudgetStore} over a {@link RemoteBudget}: a deadline on every call, a pause in asking after
 * a failure, and the fail-closed or fail-open rule of {@link SharedStoreOptions.whenUnavailable}. The
 * one place that rule is written, for every shared store.
 */
export class SharedStore implements BudgetStore {
  readonly #remote: RemoteBudget;
  readonly #whenUnavailable: "closed" | "open";
  readonly #timeoutMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #recheckMs: number;
  #downUntil = 0;
  #lastError: unknown;
  #fallback: MemoryStore | undefined;
  readonly #id = crypto.randomUUID();
  #seq = 0;

  constructor(remote: RemoteBudget, options: SharedStoreOptions) {
    this.#remote = remote;
    this.#whenUnavailable = options.whenUnavailable ?? "closed";
    this.#timeoutMs = options.timeoutMs ?? 1000;
    // A timer cannot hold 2^31 ms or more (it would fire at once), and 0 would refuse every decision.
    if (!(this.#timeoutMs > 0 && this.#timeoutMs < 2 ** 31)) {
      throw new RangeError(`timeoutMs must be a positive number of ms below 2^31, got ${this.#timeoutMs}`);
    }
    this.#onError = options.onError;
    this.#recheckMs = options.recheckMs ?? 1000;
  }

  async #run<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (Date.now() < this.#downUntil) throw this.#lastError;
    try {
      return await this.#ask(call);
    } catch (error) {
      this.#downUntil = Date.now() + this.#recheckMs;
      this.#lastError = error;
      this.#onError?.(error);
      throw error;
    }
  }

  async #ask<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`${this.#remote.where} did not answer within ${this.#timeoutMs} ms`);
        controller.abort(error);
        reject(error);
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([call(controller.signal), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  #unavailable(error: unknown): MemoryStore {
    if (this.#whenUnavailable === "closed") {
      throw new PromoReviewError({
        code: BUDGET_CODES.storeUnavailable,
        message: `The shared rate budget (${this.#remote.where}) is unreachable and the store fails closed; the request was not sent`,
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
    try {
      return await this.#run((signal) =>
        this.#remote.take(key, windows, member, ticket !== undefined, signal),
      );
    } catch (error) {
      return this.#unavailable(error).take(key, windows);
    }
  }

  /** See {@link BudgetStore.settle}. */
  async settle(key: string, windows: readonly WindowSpec[], ticket: string): Promise<void> {
    try {
      await this.#run((signal) => this.#remote.settle(key, windows, ticket, signal));
    } catch (error) {
      // Fail-open admissions live in the fallback; fail-closed has nothing to settle.
      if (this.#whenUnavailable === "open") this.#fallback?.settle(key, windows, ticket);
      else this.#onError?.(error);
    }
  }

  /** See {@link BudgetStore.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    try {
      await this.#run((signal) => this.#remote.pause(key, ms, signal));
    } catch (error) {
      this.#unavailable(error).pause(key, ms);
    }
  }
}
