/**
 * A `fetch` that holds one answer until the test releases it, for tests about what happens while a
 * request is in flight (an abort, a second caller joining it). A slowed server and a timer that fires
 * "before it answers" race each other, and under load either may win; here the request is in flight
 * from the moment `inFlight` resolves until the test calls `release()`, however slow the machine.
 */

/** The fetch to hand the client, and the events of the one answer it holds. */
export interface HeldAnswer {
  /** Sends every request for real; the first to `path` has its answer held. */
  fetch: typeof fetch;
  /**
   * Resolves once the held request reached the server and its answer came back (the server has
   * logged it); the caller does not have it until `release()` or its own abort.
   */
  inFlight: Promise<void>;
  /** Hands the held answer to its caller. */
  release(): void;
}

/**
 * Holds the answer to the first request whose path is `path`; every other request passes through.
 * An abort of the held request's signal rejects it with the signal's reason, as fetch does.
 */
export function holdFirstAnswer(path: string): HeldAnswer {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived!: () => void;
  const inFlight = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let holding = true;
  const held: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const hold = holding && new URL(request.url).pathname === path;
    if (hold) holding = false;
    const response = await fetch(request);
    if (!hold) return response;
    arrived();
    const { signal } = request;
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      void released.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    }).catch(async (reason: unknown) => {
      // The body is never read: free the connection before failing as fetch fails on an abort.
      await response.body?.cancel();
      throw reason;
    });
    return response;
  };
  return { fetch: held, inFlight, release };
}
