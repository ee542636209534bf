/**
 * The one retry loop of the backends whose writes are a compare-and-set (Deno KV's atomic commit):
 * read, decide, commit, and on a conflict or a thrown commit read again after a short random pause,
 * until the step is done, the call's deadline passes or the attempts run out.
 */

/** Options of {@link retryCommits}. */
export interface RetryCommitsOptions {
  /** The call's signal (a {@link StoreCall}'s): the loop stops once it fires. */
  signal: AbortSignal;
  /** How many attempts at most (default: until the signal fires). */
  maxAttempts?: number | undefined;
  /** The longest pause between attempts in ms (default 20); each pause is random up to `min(this, 2^attempt)`. */
  maxPauseMs?: number | undefined;
  /** Where, for the error ("Deno KV"). */
  where: string;
}

/** What one attempt answers: `{ done: value }`, or `undefined` to try again (a conflict, a commit that threw). */
export type CommitAttempt<T> = { done: T } | undefined;

/**
 * Runs `attempt` (given its 0-based number) until it answers `{ done }`. A random pause between
 * attempts spreads out the processes that met on one key, so the next round has a winner. Rejects
 * when the signal fired or `maxAttempts` attempts in a row were not done; an attempt that throws
 * rejects at once (only a conflict is retried: the attempt decides what counts as one).
 */
export async function retryCommits<T>(
  attempt: (n: number) => Promise<CommitAttempt<T>>,
  options: RetryCommitsOptions,
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? Number.POSITIVE_INFINITY;
  if (!(maxAttempts >= 1 && (Number.isInteger(maxAttempts) || maxAttempts === Number.POSITIVE_INFINITY))) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${maxAttempts}`);
  }
  const maxPauseMs = options.maxPauseMs ?? 20;
  const { signal } = options;
  for (let n = 0; n < maxAttempts && !signal.aborted; n++) {
    if (n > 0) await pauseBriefly(Math.random() * Math.min(maxPauseMs, 2 ** n), signal);
    if (signal.aborted) break;
    const answer = await attempt(n);
    if (answer !== undefined) return answer.done;
  }
  throw new Error(
    signal.aborted
      ? `${options.where}: out of time`
      : `${options.where}: ${maxAttempts} attempts in a row met a concurrent change of the key`,
  );
}

/** Waits `ms`, or less when `signal` fires. */
function pauseBriefly(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
