/**
 * Where a verifier records the `webhook-id`s it has accepted, so that a delivery replayed within the
 * replay window is processed once. `claim` must be atomic: of two concurrent claims of one id, one
 * wins. Implementations: {@link createMemoryReplayStore} (one process) and `createRedisReplayStore`
 * from `@promo-review/webhook-verify/redis` (several).
 */
export interface ReplayStore {
  /** Records `id` for `ttlMs`; resolves `false` when it is already recorded and unexpired. */
  claim(id: string, ttlMs: number): Promise<boolean>;
  /** Forgets `id`, so that a retry of a delivery whose handler failed is processed. */
  release(id: string): Promise<void>;
}

/** Options of {@link createMemoryReplayStore}. */
export interface MemoryReplayStoreOptions {
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * A replay store in this process's memory. No timer runs: expired ids are dropped while claiming
 * (from the oldest, which expire first), so memory stays bounded by the ids of one replay window.
 */
export function createMemoryReplayStore(options: MemoryReplayStoreOptions = {}): ReplayStore {
  const now = options.now ?? Date.now;
  // Insertion order is claim order; with one TTL per verifier that is also expiry order.
  const expiries = new Map<string, number>();

  function sweep(at: number): void {
    for (const [id, expiresAt] of expiries) {
      if (expiresAt > at) return;
      expiries.delete(id);
    }
  }

  return {
    async claim(id, ttlMs) {
      const at = now();
      sweep(at);
      const expiresAt = expiries.get(id);
      if (expiresAt !== undefined && expiresAt > at) return false;
      // Deleting first moves a re-claimed id to the end, keeping the map in expiry order.
      expiries.delete(id);
      expiries.set(id, at + ttlMs);
      return true;
    },
    async release(id) {
      expiries.delete(id);
    },
  };
}
