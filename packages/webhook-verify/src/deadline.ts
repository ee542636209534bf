import { PromoReviewError } from "@promo-review/errors";

/**
 * `promise`, or a retryable `REPLAY_STORE_FAILED` error once `ms` have passed; the timer never outlives
 * the call. Shared by the stores that ask another process (Redis, a Durable Object), so that every one
 * fails closed the same way: a store that does not answer lets no delivery through.
 * @param message what the error says, e.g. "The Redis replay store did not claim msg_1 within 1000 ms".
 */
export async function withinDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new PromoReviewError({ code: "REPLAY_STORE_FAILED", message, retryable: true })),
      ms,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Checks a store's `timeoutMs`: a timer cannot hold 2^31 ms or more (it would fire at once). */
export function checkedTimeout(timeoutMs: number): number {
  if (!(timeoutMs > 0 && timeoutMs < 2 ** 31)) {
    throw new RangeError(`timeoutMs must be a positive number of milliseconds below 2^31, got ${timeoutMs}`);
  }
  return timeoutMs;
}
