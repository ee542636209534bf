import { setLongTimeout } from "./timers.js";

/**
 * A signal that aborts when the caller's does, or once `ms` have passed, and a way to drop its timer
 * when the work is done.
 *
 * Why not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node the timeout signal inside
 * such a composite can be garbage-collected before it fires (nodejs/node#57736), and the deadline
 * then never comes. A plain timer holding its controller cannot be collected, and `clear()` leaves no timer behind. A deadline
 * past 2^31 - 1 ms is kept as said (see `setLongTimeout`), never turned into 1 ms.
 */
export interface Deadline {
  /** Aborts with the caller's reason, or with a `TimeoutError` `DOMException` (as `AbortSignal.timeout` does). */
  signal: AbortSignal;
  /** Stops the timer and lets go of the caller's signal; call it once the work has settled. */
  clear(): void;
}

/** See {@link Deadline}. */
export function deadlineSignal(ms: number, signal?: AbortSignal | null): Deadline {
  const deadline = startableDeadline(ms, signal);
  deadline.start();
  return deadline;
}

/** A {@link Deadline} whose time starts only when `start()` is called (the caller's abort counts at once). */
export interface StartableDeadline extends Deadline {
  /** Starts the time; later calls do nothing. */
  start(): void;
}

/**
 * A deadline that exists before its time runs: the HTTP client hands its signal to the transport
 * up front, and starts the time once the rate budget has admitted the request, so that waiting in
 * the budget's queue is not counted as the service being slow.
 */
export function startableDeadline(ms: number, signal?: AbortSignal | null): StartableDeadline {
  const controller = new AbortController();
  let cancel: (() => void) | undefined;
  const onAbort = () => {
    cancel?.();
    controller.abort(signal?.reason);
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let cleared = false;
  return {
    signal: controller.signal,
    start() {
      if (cancel || cleared || controller.signal.aborted) return;
      cancel = setLongTimeout(
        () => controller.abort(new DOMException(`the deadline of ${ms} ms passed`, "TimeoutError")),
        ms,
      );
    },
    clear() {
      cleared = true;
      cancel?.();
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
