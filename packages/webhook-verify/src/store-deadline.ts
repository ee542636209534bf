import { PromoReviewError } from "@promo-review/errors";

/**
 * The deadline every shared replay store puts on each call: `timeoutMs` (default 1000 ms) must be a
 * positive number of milliseconds a timer can hold (2^31 or more would fire at once, 0 would refuse
 * every delivery).
 */
export function storeTimeoutMs(timeoutMs: number | undefined): number {
  const ms = timeoutMs ?? 1000;
  if (!(ms > 0 && ms < 2 ** 31)) {
    throw new RangeError(`timeoutMs must be a positive number of milliseconds below 2^31, got ${ms}`);
  }
  return ms;
}

/**
 * `promise`, or a `REPLAY_STORE_FAILED` error once `ms` have passed; the timer never outlives the call.
 * `store` names the store in the message ("Redis", "Deno KV").
 */
export async function withinDeadline<T>(
  promise: Promise<T>,
  ms: number,
  store: string,
  what: string,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new PromoReviewError({
            code: "REPLAY_STORE_FAILED",
            message: `The ${store} replay store did not ${what} within ${ms} ms; the delivery was not processed`,
            retryable: true,
          }),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
