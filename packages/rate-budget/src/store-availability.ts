/**
 * What a shared store (Redis, Deno KV) does when it cannot answer: one deadline per call, a pause
 * before asking again after a failure, and the caller's choice between failing closed (a typed,
 * retryable `BUDGET_STORE_UNAVAILABLE`) and failing open (this process's own memory budget).
 */
import { PromoReviewError } from "@promo-review/errors";
import { BUDGET_CODES } from "./errors.js";
import { MemoryStore } from "./memory-store.js";

/** The options every shared store takes for when it is unreachable. */
export interface UnavailableOptions {
  /**
   * When the store does not answer (error, or nothing within `timeoutMs`):
   * - `"closed"` (default): the request is refused with a retryable `BUDGET_STORE_UNAVAILABLE`
   *   error. Nothing is sent that the shared budget did not admit.
   * - `"open"`: the process falls back to its own in-memory budget until the store answers again. Each
   *   process keeps to the limits on its own, but processes sharing the key may together exceed them
   *   (and see 429s, which still pause them).
   */
  whenUnavailable?: "closed" | "open" | undefined;
  /**
   * How long to wait for the store per call (take, settle, pause). Default 1000 ms. It bounds the wait
   * whatever the client does meanwhile.
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

/** One store's availability: see the file's comment. `store` names it in messages ("Redis"). */
export class StoreAvailability {
  readonly whenUnavailable: "closed" | "open";
  readonly #store: string;
  readonly #timeoutMs: number;
  readonly #recheckMs: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  #downUntil = 0;
  #lastError: unknown;
  #fallback: MemoryStore | undefined;

  /** @param store the store's name in messages. @param options see {@link UnavailableOptions}. */
  constructor(store: string, options: UnavailableOptions) {
    this.#store = store;
    this.whenUnavailable = options.whenUnavailable ?? "closed";
    this.#timeoutMs = options.timeoutMs ?? 1000;
    // A timer cannot hold 2^31 ms or more (it would fire at once), and 0 would refuse every decision.
    if (!(this.#timeoutMs > 0 && this.#timeoutMs < 2 ** 31)) {
      throw new RangeError(`timeoutMs must be a positive number of ms below 2^31, got ${this.#timeoutMs}`);
    }
    this.#onError = options.onError;
    this.#recheckMs = options.recheckMs ?? 1000;
  }

  /**
   * Runs `call` within the deadline, unless the store failed less than `recheckMs` ago (then throws
   * that failure again at once). `call` is told when the deadline has passed, to stop retrying.
   */
  async run<T>(call: (expired: () => boolean) => Promise<T>): Promise<T> {
    if (Date.now() < this.#downUntil) throw this.#lastError;
    let expired = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new Error(`${this.#store} did not answer within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
    });
    try {
      return await Promise.race([call(() => expired), timeout]);
    } catch (error) {
      this.#downUntil = Date.now() + this.#recheckMs;
      this.#lastError = error;
      this.#onError?.(error);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** After a failure: throws the typed error (closed), or answers the memory store to use (open). */
  unavailable(error: unknown): MemoryStore {
    if (this.whenUnavailable === "closed") {
      throw new PromoReviewError({
        code: BUDGET_CODES.storeUnavailable,
        message: `The shared rate budget (${this.#store}) is unreachable and the store fails closed; the request was not sent`,
        retryable: true,
        cause: error,
      });
    }
    this.#fallback ??= new MemoryStore();
    return this.#fallback;
  }

  /** A settle that failed: fail-open admissions live in the fallback; fail-closed has nothing to settle. */
  settleFailed(error: unknown, settle: (fallback: MemoryStore) => void): void {
    if (this.whenUnavailable === "open") {
      if (this.#fallback) settle(this.#fallback);
    } else this.#onError?.(error);
  }
}
