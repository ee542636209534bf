/**
 * Waiting on work that cannot itself be stopped (a stream read already asked for) while still
 * answering an abort at once.
 */
import { errorFromTransport } from "@promo-review/errors/internal";

/** Resolves or rejects as `work` does, or rejects with an `AbortError` as soon as `signal` fires. */
export function raceAbort<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted)
    return Promise.reject(errorFromTransport(signal.reason, { aborted: true, sent: false }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(errorFromTransport(signal.reason, { aborted: true, sent: false }));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
