/**
 * Waiting for a state a test depends on (a request logged, a resource released) instead of sleeping
 * for a guessed time: the wait ends as soon as the state holds, and a state that never comes fails
 * with what was awaited rather than with a confusing assertion later.
 */

/** Polls `check` every 20 ms until it is true; throws naming `what` after `timeoutMs` (default 10 s). */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
