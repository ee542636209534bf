/**
 * Read buffers lent to one chunk's request body and given back once that request is over, so a large
 * file is sent through a fixed set of buffers instead of a GiB of garbage (each fresh 1 MiB buffer is
 * memory the garbage collector must find and free, and on Node it is most of what a read costs).
 */

/** The buffers one request may take; each stays lent until the request is over and reading stopped. */
export interface Lease {
  /** A buffer to read into: a returned one when there is one, else a new one. */
  take(): Uint8Array;
  /** Reading for this request has stopped: no read into a lent buffer is pending any more. */
  finished(): void;
}

/** A pool of equal buffers, lent per request. */
export interface BufferPool {
  /**
   * Lends buffers to the request that `settled` belongs to (it aborts once the request is over). They
   * come back when both the request is over and reading has `finished`; without `settled` nothing is
   * ever given back (nothing says when the body's bytes are no longer wanted).
   */
  lend(settled?: AbortSignal): Lease;
}

/** A pool of buffers of `size` bytes, keeping at most `limit` of them for reuse. */
export function bufferPool(
  size: number,
  limit: number,
  allocate: (size: number) => Uint8Array = (n) => new Uint8Array(n),
): BufferPool {
  const pool: Uint8Array[] = [];
  return {
    lend(settled) {
      const lent: Uint8Array[] = [];
      let finished = false;
      // A body the transport is done with may still have a read pending into a lent buffer (an early
      // answer stops the body mid-read), and a read finished before the answer may still be queued on
      // the socket: only both ends together make a buffer free.
      const release = () => {
        if (!finished || !settled?.aborted) return;
        for (const buffer of lent.splice(0)) if (pool.length < limit) pool.push(buffer);
      };
      settled?.addEventListener("abort", release, { once: true });
      return {
        take() {
          const buffer = pool.pop() ?? allocate(size);
          if (settled) lent.push(buffer);
          return buffer;
        },
        finished() {
          finished = true;
          release();
        },
      };
    },
  };
}
