/**
 * A signal that aborts when the caller's does, or once `ms` have passed, and a way to drop its timer
 * when the work is done.
 *
 * Why not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node the timeout signal inside
 * such a composite can be garbage-collected before it fires (nodejs/node#57736), and the deadline
 * then never comes. Seen here as a stream PUT's 100 ms timeout that never fired in a CI run. A plain
 * timer holding its controller cannot be collected, and `clear()` leaves no timer behind.
 */
export interface Deadline {
  /** Aborts with the caller's reason, or with a `TimeoutError` `DOMException` (as `AbortSignal.timeout` does). */
  signal: AbortSignal;
  /** Stops the timer and lets go of the caller's signal; call it once the work has settled. */
  clear(): void;
}

/** See {@link Deadline}. */
export function deadlineSignal(ms: number, signal?: AbortSignal | null): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`The operation timed out after ${ms} ms`, "TimeoutError")),
    ms,
  );
  const onAbort = () => {
    clearTimeout(timer);
    controller.abort(signal?.reason);
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
