/**
 * One upload of a file at a time within this uploader: two uploads of the same bytes started at once
 * (a batch whose items name one file, a page calling `upload` twice) would otherwise both find no
 * resume point, or both find the same one, and send the same bytes side by side. The second waits for
 * the first, then finds its resume point (the first stopped: it continues from the service's offset)
 * or none (the first finished). Across tabs or processes a store's own `exclusive` (Web Locks) still
 * applies, inside this one.
 */
import type { ResumeStore } from "./types.js";

/** Settles when `promise` settles, or rejects with the signal's reason once it aborts. */
function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
    );
  });
}

/** `store`, whose `exclusive` also keeps uploads of one fingerprint in this uploader one at a time. */
export function oneFileAtATime(store: ResumeStore): ResumeStore {
  /** The last upload of each fingerprint, settled once it and every one before it have. */
  const queue = new Map<string, Promise<unknown>>();
  return {
    get: (fingerprint, use) => store.get(fingerprint, use),
    set: (fingerprint, record, use) => store.set(fingerprint, record, use),
    delete: (fingerprint, use) => store.delete(fingerprint, use),
    async exclusive(fingerprint, signal, task) {
      const before = queue.get(fingerprint);
      const mine = (async () => {
        if (before) await settledOrAborted(before, signal);
        return store.exclusive ? store.exclusive(fingerprint, signal, task) : task();
      })();
      // The next waits for this one AND the one before: this one may have stopped waiting (aborted)
      // while the one before still sends.
      const last = Promise.allSettled([before, mine]);
      queue.set(fingerprint, last);
      try {
        return await mine;
      } finally {
        if (queue.get(fingerprint) === last) queue.delete(fingerprint);
      }
    },
  };
}
