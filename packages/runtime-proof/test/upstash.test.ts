/**
 * Upstash (Redis over HTTPS) in the runtimes of the functions that use it: Node and the Vercel Edge
 * runtime (`edge-runtime` from npm, each process its own EdgeRuntime), all against one local Upstash
 * REST server (testing/upstash-rest.ts) in front of a real redis-server on 127.0.0.1.
 */
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable } from "../../../testing/redis-server.ts";
import { useUpstashRest } from "../../../testing/upstash-rest.ts";
import { maxInAnyWindow } from "../../../testing/windows.ts";
import { bundleScenario, type Runtime } from "./harness/bundle.ts";
import { captureDelivery } from "./harness/deliveries.ts";
import { runBundle } from "./harness/runners.ts";
import { output } from "./harness/runtime-suite.ts";
import { endpointsOf, startProofSimulator } from "./harness/simulator.ts";

const RUNTIMES: Runtime[] = ["node-esm", "edge-runtime"];
const PROCESSES = 4;
/** The budget the processes share, and the simulator's own limit: the same. */
const LIMIT = 20;
const WINDOW_MS = 1000;
const RUN_MS = 3000;

describe.runIf(redisAvailable("runtime-proof Upstash"))(
  "Upstash in Node and in the Vercel Edge runtime",
  () => {
    const upstash = useUpstashRest();
    let sim: Simulator;

    beforeAll(async () => {
      sim = await startProofSimulator();
    });
    afterAll(async () => {
      await sim?.close();
    });

    /** Runs `scenario` in `count` processes of `runtime` at once; `extra(i)` is process i's own input. */
    const inProcesses = async (
      runtime: Runtime,
      scenario: string,
      extra: (i: number) => Record<string, unknown>,
      options: { count?: number; simulator?: Simulator } = {},
    ) => {
      const rest = upstash.rest();
      const upstashInput = { url: rest.url, token: rest.token, prefix: upstash.prefix() };
      const file = await bundleScenario(scenario, runtime);
      const outcomes = await Promise.all(
        Array.from({ length: options.count ?? PROCESSES }, (_, i) =>
          runBundle(
            runtime,
            file,
            { sim: endpointsOf(options.simulator ?? sim), upstash: upstashInput, ...extra(i) },
            { timeoutMs: 90_000 },
          ),
        ),
      );
      return outcomes.map((outcome) => output(outcome, runtime));
    };

    for (const runtime of RUNTIMES) {
      describe(runtime, () => {
        describe("@upstash/redis runs there: of 4 processes claiming one key with SET NX, one wins", () => {
          it("claims once, and every process runs the script", async () => {
            const key = `${upstash.prefix()}claim`;
            const outputs = await inProcesses(runtime, "upstash-client", () => ({ key }));
            expect(outputs.filter((o) => o["claimed"] === true)).toHaveLength(1);
            expect(outputs.filter((o) => o["holderIsMe"] === true)).toHaveLength(1);
            expect(outputs.map((o) => o["count"]).sort()).toEqual([1, 2, 3, 4]);
          });
        });

        describe("4 processes share one key's budget: no 429 from the service, never over the limit in any window", () => {
          it(`${LIMIT} per ${WINDOW_MS} ms for ${RUN_MS} ms`, async () => {
            const limited = await startSimulator({ rateLimitWindowMs: WINDOW_MS, mainApiLimit: LIMIT });
            try {
              const startAt = Date.now() + 8000;
              const budget = {
                keyId: `${runtime}-budget`,
                limit: LIMIT,
                windowMs: WINDOW_MS,
                startAt,
                runMs: RUN_MS,
              };
              const outputs = await inProcesses(
                runtime,
                "upstash-budget",
                () => ({ ...budget, concurrency: 4 }),
                {
                  simulator: limited,
                },
              );
              const log = limited.control.requests().filter((r) => r.path === "/v1/channels");
              const admitted = log.filter((r) => r.status === 200).map((r) => Date.parse(r.time));
              const most = maxInAnyWindow(admitted, WINDOW_MS);
              console.log(
                `${runtime}: ${admitted.length} answered in ${RUN_MS} ms (per process ${outputs.map((o) => o["ok"]).join(", ")}), most in any ${WINDOW_MS} ms: ${most}`,
              );
              expect(log.filter((r) => r.status === 429)).toHaveLength(0);
              expect(outputs.reduce((n, o) => n + (o["tooMany"] as number), 0)).toBe(0);
              expect(most).toBeLessThanOrEqual(LIMIT);
              expect(admitted.length).toBeGreaterThan(LIMIT);
            } finally {
              await limited.close();
            }
          });
        });

        describe("100 parallel copies of one delivery over 2 receivers: accepted once", () => {
          it("one acceptance, 99 replays", async () => {
            // A delivery of its own, signed now: one shared by both runtimes could outlive the
            // verifier's 300 s timestamp tolerance on a slow machine and be refused as too old.
            const copies = { delivery: await captureDelivery(sim), copies: 50 };
            const outputs = await inProcesses(runtime, "upstash-webhook", () => copies, { count: 2 });
            const refusals = outputs.flatMap((o) => o["refusals"] as string[]);
            const accepted = outputs.reduce((n, o) => n + (o["accepted"] as number), 0);
            expect(accepted, `refused as: ${refusals.join("; ")}`).toBe(1);
            for (const refusal of refusals) expect(refusal).toMatch(/replay/i);
          });
        });

        describe("a REST server that stalls or answers 5xx costs a call no more than timeoutMs, closed or open", () => {
          const TIMEOUT_MS = 500;
          for (const fault of ["stall", "fail"] as const) {
            for (const whenUnavailable of ["closed", "open"] as const) {
              it(`${fault}, ${whenUnavailable}`, async () => {
                const rest = upstash.rest();
                rest.resetCounts();
                if (fault === "stall") rest.stall();
                else rest.fail(503);
                // A stalled request keeps a Node process alive (fetch has no deadline of its own, and
                // @upstash/redis sets none): once its three calls have been sent and their deadlines
                // passed, the server lets go, and the process can end.
                const letGo = (async () => {
                  const until = Date.now() + 60_000;
                  const scripts = () => rest.roundTrips.filter((r) => r.commands.includes("EVALSHA")).length;
                  while (scripts() < 3 && Date.now() < until) await new Promise((ok) => setTimeout(ok, 50));
                  await new Promise((ok) => setTimeout(ok, TIMEOUT_MS + 500));
                  await rest.heal();
                })();
                const [out] = await inProcesses(
                  runtime,
                  "upstash-outage",
                  () => ({ timeoutMs: TIMEOUT_MS, whenUnavailable }),
                  { count: 1 },
                );
                await letGo;
                const outcomes = out!["outcomes"] as {
                  name: string;
                  elapsedMs: number;
                  value?: unknown;
                  error?: { code?: string };
                }[];
                // A loaded machine's timers fire late: the slack covers that, not a second deadline.
                for (const o of outcomes) expect(o.elapsedMs, o.name).toBeLessThanOrEqual(TIMEOUT_MS + 400);
                if (whenUnavailable === "closed") {
                  expect(outcomes.map((o) => o.error?.code)).toEqual([
                    "BUDGET_STORE_UNAVAILABLE",
                    "REPLAY_STORE_FAILED",
                    "RESUME_STORE_UNAVAILABLE",
                  ]);
                } else {
                  expect(outcomes.map((o) => o.value ?? null)).toEqual([{ ok: true }, true, null]);
                }
              });
            }
          }
        });

        describe("an upload one process started, another resumes from the service's offset", () => {
          it("resumes instead of starting again", async () => {
            const chunkSize = 256 * 1024;
            const rest = upstash.rest();
            const shared = {
              sim: endpointsOf(sim),
              upstash: { url: rest.url, token: rest.token, prefix: upstash.prefix() },
              size: 4 * chunkSize,
              chunkSize,
            };
            const file = await bundleScenario("upstash-upload", runtime);
            const run = (phase: string) =>
              runBundle(runtime, file, { ...shared, phase }, { timeoutMs: 90_000 });
            const started = output(await run("start"), runtime);
            expect(started["stopped"]).toBe(true);
            const resumed = output(await run("resume"), runtime);
            expect(resumed["status"]).toBe("completed");
            expect(resumed["resumedFrom"]).toBeGreaterThanOrEqual(chunkSize);
          });
        });
      });
    }
  },
);
