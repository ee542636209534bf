import { PromoReviewError } from "@promo-review/errors";
import { MemoryStore } from "@promo-review/store";
import { BUDGET_CODES } from "./errors.js";
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
   * waits about ten seconds before the client itself gives up. Only the call that finds the store
   * gone waits this long: until it answers again, later calls for that key fail closed (or fall back)
   * at once.
   */
  timeoutMs?: number | undefined;
  /**
   * While the store is down, how often to ask it again: one cheap probe at a time (Redis), which
   * nobody waits on and which the client holds until it reaches the store, so the store is used again
   * the moment the client has reconnected; for a store without probes, the first decision this long
   * after the last failure asks. Default 1000 ms. How soon a Redis client reconnects is its own
   * setting (ioredis: `retryStrategy`, whose default waits up to 2 s between attempts).
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
  /**
   * Removes the admission recorded as `member`. Sent when a take failed on this side (its deadline
   * passed) but may still reach the store later (a client's offline queue, a resend after a
   * reconnect): an admission nobody uses would block the key for a window. Optional.
   */
  forget?(key: string, windows: readonly WindowSpec[], member: string): Promise<unknown>;
  /**
   * A cheap call with no deadline that answers once the store is reachable again (a client that holds
   * commands until it reconnects, as ioredis's offline queue does), so the store is used again the
   * moment it is back. Optional: without it, the first decision `recheckMs` after a failure asks.
   */
  probe?(key: string): Promise<unknown>;
}

/** A key whose store is known to be unreachable. */
interface Down {
  error: unknown;
  probing: Promise<unknown> | undefined;
  probedAt: number;
}

/** Calls `send`, turning a synchronous throw into a rejection (a client that throws must not break a decision). */
function rejectionOf(send: () => Promise<unknown>): Promise<unknown> {
  try {
    return send();
  } catch (error) {
    return Promise.reject(error);
  }
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
  /**
   * The keys whose store is known to be unreachable: the error that said so, and the probe asking
   * again. By key, because on a Redis Cluster each key's master fails alone: the others' keys carry on.
   */
  readonly #down = new Map<string, Down>();
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

  /**
   * One call under the store's deadline. While the key's store is known to be down nothing waits: the
   * call fails at once, and one probe at a time finds out when it is back. `undo` is sent when the call
   * fails, in case it still reaches the store later.
   */
  async #run<T>(
    key: string,
    call: (signal: AbortSignal) => Promise<T>,
    undo?: () => Promise<unknown>,
  ): Promise<T> {
    const down = this.#down.get(key);
    if (down !== undefined && (down.probing !== undefined || Date.now() - down.probedAt < this.#recheckMs)) {
      this.#probe(key, down);
      throw down.error;
    }
    // Up, or its last probe failed over `recheckMs` ago: this decision asks, under its deadline.
    try {
      const answer = await this.#ask(call);
      this.#down.delete(key);
      return answer;
    } catch (error) {
      if (undo !== undefined) rejectionOf(undo).catch(() => {});
      const marked: Down = { error, probing: undefined, probedAt: Number.NEGATIVE_INFINITY };
      this.#down.set(key, marked);
      this.#onError?.(error);
      this.#probe(key, marked);
      throw error;
    }
  }

  /**
   * While the store is down, one cheap call at a time, without the deadline (see
   * {@link RemoteBudget.probe}). A probe unanswered for `recheckMs` is replaced by the next decision's;
   * once one has failed (a client that gave up on it), or without probes, the next decision
   * `recheckMs` after the last ask goes to the store itself.
   */
  #probe(key: string, down: Down): void {
    const now = Date.now();
    if (now - down.probedAt < this.#recheckMs) return;
    down.probedAt = now;
    const { probe } = this.#remote;
    if (probe === undefined) return;
    const probing = rejectionOf(() => probe.call(this.#remote, key));
    down.probing = probing;
    probing.then(
      () => {
        if (this.#down.get(key) === down) this.#down.delete(key);
      },
      () => {
        if (down.probing === probing) down.probing = undefined;
      },
    );
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
      const { forget } = this.#remote;
      return await this.#run(
        key,
        (signal) => this.#remote.take(key, windows, member, ticket !== undefined, signal),
        forget && (() => forget.call(this.#remote, key, windows, member)),
      );
    } catch (error) {
      return this.#unavailable(error).take(key, windows);
    }
  }

  /** See {@link BudgetStore.settle}. */
  async settle(key: string, windows: readonly WindowSpec[], ticket: string): Promise<void> {
    try {
      await this.#run(key, (signal) => this.#remote.settle(key, windows, ticket, signal));
    } catch (error) {
      // Fail-open admissions live in the fallback; fail-closed has nothing to settle.
      if (this.#whenUnavailable === "open") this.#fallback?.settle(key, windows, ticket);
      else this.#onError?.(error);
    }
  }

  /** See {@link BudgetStore.pause}. */
  async pause(key: string, ms: number): Promise<void> {
    try {
      await this.#run(key, (signal) => this.#remote.pause(key, ms, signal));
    } catch (error) {
      this.#unavailable(error).pause(key, ms);
    }
  }
}
