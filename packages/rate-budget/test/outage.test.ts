import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, startRedis, type TestRedis } from "../../../testing/redis-server.ts";
import { buildPackage, forkWorkers } from "./workers.ts";

const WORKERS = 6;
const LIMIT = 10;
const WINDOW_MS = 2000;
const TIMEOUT_MS = 500;
const RUN_MS = 6000;
const KILL_AT = 1000;
const RESTART_AT = 3500;
/** Room for a loaded 2-core machine; the bounds themselves are the issue's. */
const SLACK_MS = 1000;
/** How long a worker may take past its run before the test gives up on it. */
const REPORT_DEADLINE_MS = RUN_MS + 20_000;

interface Call {
  start: number;
  waitMs: number;
  sentAt?: number;
  outcome: number | string;
}
interface Report {
  calls: Call[];
  decisions: { method: string; at: number; ms: number; referenceLateMs: number }[];
  redisAdmissions: number[];
}

/** Six processes share one key through a Redis that is killed (by pid) and restarted on its port. */
async function runOutage(
  sim: Simulator,
  mode: "open" | "closed",
): Promise<{ reports: Report[]; startAt: number; restartedAt: number }> {
  let redis: TestRedis | undefined = await startRedis();
  const port = redis.port;
  const workers = forkWorkers<Report>({
    file: "outage-worker.mjs",
    count: WORKERS,
    config: {
      redisPort: port,
      baseUrl: sim.baseUrl,
      filesUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
      keyId: `outage-${mode}`,
      limit: LIMIT,
      windowMs: WINDOW_MS,
      mode,
      timeoutMs: TIMEOUT_MS,
      runMs: RUN_MS,
      concurrency: 3,
    },
    reportDeadlineMs: REPORT_DEADLINE_MS,
  });
  try {
    await workers.ready;
    const startAt = Date.now() + 300;
    const reports = workers.start(startAt);
    reports.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, startAt + KILL_AT - Date.now()));
    await redis.stop("SIGKILL");
    redis = undefined;
    await new Promise((resolve) => setTimeout(resolve, startAt + RESTART_AT - Date.now()));
    redis = await startRedis(port);
    const restartedAt = Date.now();
    return { reports: await reports, startAt, restartedAt };
  } finally {
    workers.stop();
    await redis?.stop();
  }
}

function summary(mode: string, reports: Report[], startAt: number, restartedAt: number): string {
  const calls = reports.flatMap((r) => r.calls);
  const decisions = reports.flatMap((r) => r.decisions);
  const longestCall = Math.max(...calls.map((c) => c.waitMs));
  const longestDecision = Math.max(...decisions.map((d) => d.ms));
  const back = reports.map(
    (r) => (r.redisAdmissions.find((t) => t >= restartedAt) ?? Number.NaN) - restartedAt,
  );
  return (
    `${mode}: ${calls.length} calls, ${calls.filter((c) => c.sentAt !== undefined).length} sent, ` +
    `${calls.filter((c) => c.outcome === 429).length} 429s; longest budget wait ${longestCall} ms, ` +
    `longest store decision ${longestDecision} ms; Redis admitted again ${back.join(", ")} ms after the ` +
    `restart (restart at ${restartedAt - startAt} ms)`
  );
}

describe.runIf(redisAvailable("rate-budget Redis outage"))(
  "an unreachable Redis costs a call no more than the store's deadline, in either mode",
  () => {
    let sim: Simulator;

    beforeAll(async () => {
      buildPackage();
      sim = await startSimulator({ rateLimitWindowMs: WINDOW_MS, mainApiLimit: LIMIT });
    });

    afterAll(async () => {
      await sim?.close();
    });

    for (const mode of ["open", "closed"] as const) {
      it(`${mode}: no store decision waits past timeoutMs, and calls flow within a second of the restart`, async () => {
        // One simulator serves both modes, and open mode overspends the key on purpose: its last
        // requests must not share the server's window with the closed run's first ones.
        await sim.control.reset();
        const { reports, startAt, restartedAt } = await runOutage(sim, mode);
        console.log(summary(mode, reports, startAt, restartedAt));
        const calls = reports.flatMap((r) => r.calls);
        // Per decision: the store's deadline, whatever Redis is doing, plus how late a plain timer set
        // for timeoutMs at the same moment ran in that process (a busy event loop delays every timer).
        for (const decision of reports.flatMap((r) => r.decisions))
          expect(
            decision.ms,
            `${decision.method} at ${decision.at - startAt} ms (a timer then ran ${decision.referenceLateMs} ms late)`,
          ).toBeLessThanOrEqual(TIMEOUT_MS + decision.referenceLateMs + SLACK_MS);
        // A call refused because Redis is down is refused within the deadline, bar the wait for room it
        // may already have queued for (a window at most): calls that started before the kill may have
        // waited for room longer, and are not the store's doing.
        for (const call of calls.filter((c) => typeof c.outcome === "string" && c.start >= startAt + KILL_AT))
          expect(call.waitMs, `call started at ${call.start - startAt} ms`).toBeLessThanOrEqual(
            WINDOW_MS + TIMEOUT_MS + SLACK_MS,
          );
        // After the restart Redis admits again within about a second (no admission left over from the
        // outage blocks the key), and at least a window's worth of calls goes out in the next two windows.
        const admitted = reports.flatMap((r) => r.redisAdmissions).filter((t) => t >= restartedAt);
        expect(admitted.length, "Redis admitted requests after the restart").toBeGreaterThan(0);
        expect(Math.min(...admitted) - restartedAt).toBeLessThanOrEqual(1000 + SLACK_MS);
        const sentAfter = calls.filter(
          (c) => c.sentAt !== undefined && c.sentAt >= restartedAt && c.sentAt < restartedAt + 2 * WINDOW_MS,
        );
        expect(sentAfter.length).toBeGreaterThanOrEqual(LIMIT);
        if (mode === "closed") {
          // Nothing is sent that the shared budget did not admit: no call during the outage, no 429.
          const killedAt = startAt + KILL_AT;
          const during = calls.filter(
            (c) =>
              c.sentAt !== undefined && c.start > killedAt + TIMEOUT_MS + SLACK_MS && c.sentAt < restartedAt,
          );
          expect(during).toEqual([]);
          expect(calls.filter((c) => c.outcome === 429)).toEqual([]);
        }
      }, 90_000);
    }
  },
);
