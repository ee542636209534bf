/**
 * One way to wait for something the service finishes later (an upload's processing, a link import,
 * an evaluation): check, pause, check again, until done, the deadline or the caller's abort.
 */
import { TimeoutError } from "@promo-review/errors";
import { isOverWaitBound } from "@promo-review/errors/internal";
import { sleep } from "./retry.js";

/**
 * What one check found: `done` with the value to return, or not yet, optionally with the server's
 * own wait before the next check (`retryAfterMs`, as a `Retry-After` header said).
 */
export type PollCheck<T> = { done: true; value: T } | { done: false; retryAfterMs?: number | undefined };

/** How the pause grows while a check keeps answering "not yet". */
export interface PollBackoff {
  /** The pause after the first "not yet" (before jitter). */
  initialMs: number;
  /** The longest pause (before jitter). */
  maxMs: number;
  /** Each "not yet" multiplies the pause by this (rounded to whole ms). Default 2. */
  factor?: number | undefined;
  /**
   * `none` (the default) pauses exactly the interval; `full` anywhere in [0, interval); `equal` in
   * [interval / 2, interval): polls of many clients spread out, and `equal` never polls much sooner.
   */
  jitter?: "none" | "full" | "equal" | undefined;
  /** No pause is shorter than this (after jitter). Default 0. */
  minMs?: number | undefined;
  /** The random source of the jitter, in [0, 1). Default `Math.random`. */
  random?: (() => number) | undefined;
}

/** A pause the poll is about to take, for progress reports and for saving a poll's state. */
export interface PollPause {
  /** The check (1-based) that was not done, or that failed. */
  attempt: number;
  /** How long the poll pauses now (before the deadline shortens it). */
  delayMs: number;
  /** `pending`: the check said not yet; `retry-after`: the server said how long; `error`: a check failed and is tried again. */
  reason: "pending" | "retry-after" | "error";
  /** For `error`: what the check threw. */
  error?: unknown;
  /** The backoff interval the next "not yet" pauses for (before jitter): save it to resume the pacing. */
  intervalMs: number;
}

/** How {@link poll} waits. */
export interface PollOptions {
  /** Pacing of the "not yet" answers. */
  backoff: PollBackoff;
  /** Ends the wait: a pause rejects with an `AbortError` at once; a check gets the signal itself. */
  signal?: AbortSignal | undefined;
  /** Gives up after this long (from the call). Default: no deadline. */
  timeoutMs?: number | undefined;
  /** Or gives up at this time (epoch ms), for a poll resumed from saved state. Wins over `timeoutMs`. */
  deadlineAt?: number | undefined;
  /**
   * `false` (the default): no check starts at or after the deadline. `true`: every wait checks at least
   * once, and a pause cut short by the deadline is followed by one last check, so a timeout is reported
   * only after a check that was not done.
   */
  checkAtDeadline?: boolean | undefined;
  /** The error given at the deadline. Default: a `TimeoutError` (`TIMEOUT`) naming the checks made. */
  timeoutError?: ((attempts: number) => Error) | undefined;
  /**
   * Called when a check throws: return the pause before trying again, or throw (the error, or one that
   * explains it). Default: the error goes to the caller. `intervalMs` is the current backoff interval.
   * An error carrying `retryAfterMs` is never retried sooner than that, and never when it is over
   * `MAX_SERVER_WAIT_MS` (one hour): then it goes to the caller at once, unslept.
   */
  onError?: ((error: unknown, intervalMs: number) => number) | undefined;
  /** Called before each pause. */
  onPause?: ((pause: PollPause) => void) | undefined;
}

/** The pause of one "not yet" at `intervalMs`, jittered as `backoff` says. */
export function jittered(intervalMs: number, backoff: PollBackoff): number {
  const random = backoff.random ?? Math.random;
  const jitter = backoff.jitter ?? "none";
  const delay =
    jitter === "none"
      ? intervalMs
      : Math.round(intervalMs * (jitter === "equal" ? 0.5 + random() / 2 : random()));
  return Math.max(backoff.minMs ?? 0, delay);
}

/** The interval after `intervalMs` once a check said "not yet": grown by `factor`, capped at `maxMs`. */
export function nextInterval(intervalMs: number, backoff: PollBackoff): number {
  return Math.min(backoff.maxMs, Math.round(intervalMs * (backoff.factor ?? 2)));
}

function serverWaitOf(error: unknown): number | undefined {
  const wait = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof wait === "number" ? wait : undefined;
}

/** The pause after a failed check: the caller's, never shorter than the server's bounded wait. */
function errorPause(error: unknown, intervalMs: number, options: PollOptions): number {
  const serverWait = serverWaitOf(error);
  if (serverWait !== undefined && isOverWaitBound(serverWait)) throw error;
  if (!options.onError || options.signal?.aborted) throw error;
  return Math.max(options.onError(error, intervalMs), serverWait ?? 0);
}

function defaultTimeout(timeoutMs: number | undefined): (attempts: number) => Error {
  return (attempts) =>
    new TimeoutError({
      code: "TIMEOUT",
      message: `Still not done after ${attempts} checks${timeoutMs === undefined ? "" : ` and ${timeoutMs} ms`}`,
      mayHaveReachedServer: true,
    });
}

/**
 * Runs `check` until it is done and returns its value. Between checks it pauses: after "not yet" for
 * the backoff interval (growing by `factor` up to `maxMs`, jittered), or for the server's
 * `retryAfterMs` when the answer gave one (a wait over `MAX_SERVER_WAIT_MS` is not honoured: the
 * backoff pause is taken); after a failure as `onError` says. No pause runs past the deadline, which
 * ends the poll with `timeoutError`; the caller's `signal` ends it with an `AbortError`. A check in
 * flight is not cut at the deadline: it has its own request deadline, and its answer may be the one.
 */
export async function poll<T>(
  check: (attempt: number) => Promise<PollCheck<T>>,
  options: PollOptions,
): Promise<T> {
  const { backoff, signal } = options;
  const deadlineAt =
    options.deadlineAt ?? (options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs);
  const timeout = options.timeoutError ?? defaultTimeout(options.timeoutMs);
  let intervalMs = backoff.initialMs;
  let attempts = 0;
  for (;;) {
    if (!options.checkAtDeadline && Date.now() >= deadlineAt) throw timeout(attempts);
    attempts++;
    let pause: PollPause;
    try {
      const outcome = await check(attempts);
      if (outcome.done) return outcome.value;
      const serverWait = outcome.retryAfterMs;
      if (serverWait !== undefined && !isOverWaitBound(serverWait)) {
        pause = { attempt: attempts, delayMs: serverWait, reason: "retry-after", intervalMs };
      } else {
        const delayMs = jittered(intervalMs, backoff);
        intervalMs = nextInterval(intervalMs, backoff);
        pause = { attempt: attempts, delayMs, reason: "pending", intervalMs };
      }
    } catch (error) {
      pause = {
        attempt: attempts,
        delayMs: errorPause(error, intervalMs, options),
        reason: "error",
        error,
        intervalMs,
      };
    }
    options.onPause?.(pause);
    const left = deadlineAt - Date.now();
    if (left <= 0) throw timeout(attempts);
    await sleep(Math.min(pause.delayMs, left), signal);
  }
}
