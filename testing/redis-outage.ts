/**
 * An outage of a real redis-server, as the store suites measure it: the server is killed (SIGKILL, by
 * its pid), stays down a while, and is started again on the same port. Meanwhile each client's call
 * runs in rounds; what comes back is every call's duration, every refusal, and when each client's
 * calls were answered again after the restart. The suites assert the bounds (the store's deadline,
 * "about a second" after the restart); this file only measures.
 */
import { startRedis, type TestRedis } from "./redis-server.ts";

/** What an outage looked like from the clients. */
export interface OutageReport {
  /** The server started again on the same port (the caller stops it). */
  restarted: TestRedis;
  /** The errors of the calls made while the server was down (each call must fail while it is). */
  refusals: unknown[];
  /** Calls answered while the server was down (none should be). */
  answeredWhileDown: number;
  /** The longest any one call took, down or back up. */
  longestCallMs: number;
  /** Per client: ms from the restart to its first answered call (`undefined`: none within 10 s). */
  backAfterMs: (number | undefined)[];
}

/**
 * Kills `server`, runs `calls` (one per client, all at once, round after round) for `downMs`, restarts
 * the server on its port, and runs rounds until every client has been answered (10 s at most).
 */
export async function throughKillAndRestart(options: {
  server: TestRedis;
  calls: (() => Promise<unknown>)[];
  downMs?: number;
}): Promise<OutageReport> {
  const { calls } = options;
  let longestCallMs = 0;
  const round = () =>
    Promise.all(
      calls.map(async (call) => {
        const start = Date.now();
        const outcome = await call().then(
          () => ({ ok: true as const }),
          (error: unknown) => ({ ok: false as const, error }),
        );
        longestCallMs = Math.max(longestCallMs, Date.now() - start);
        return outcome;
      }),
    );
  await options.server.stop("SIGKILL");
  const refusals: unknown[] = [];
  let answeredWhileDown = 0;
  const downUntil = Date.now() + (options.downMs ?? 1500);
  while (Date.now() < downUntil) {
    for (const outcome of await round()) {
      if (outcome.ok) answeredWhileDown++;
      else refusals.push(outcome.error);
    }
  }
  const restarted = await startRedis(options.server.port);
  const restartedAt = Date.now();
  const backAfterMs: (number | undefined)[] = calls.map(() => undefined);
  while (backAfterMs.includes(undefined) && Date.now() - restartedAt < 10_000) {
    (await round()).forEach((outcome, i) => {
      if (outcome.ok) backAfterMs[i] ??= Date.now() - restartedAt;
    });
  }
  return { restarted, refusals, answeredWhileDown, longestCallMs, backAfterMs };
}
