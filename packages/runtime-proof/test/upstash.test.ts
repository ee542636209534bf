/**
 * Upstash (Redis over HTTPS) in the runtimes of the functions that use it: Node and the Vercel Edge
 * runtime (`edge-runtime` from npm, each process its own EdgeRuntime), all against one local Upstash
 * REST server (testing/upstash-rest.ts) in front of a real redis-server on 127.0.0.1.
 */
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable } from "../../../testing/redis-server.ts";
import { useUpstashRest } from "../../../testing/upstash-rest.ts";
import { bundleScenario, type Runtime } from "./harness/bundle.ts";
import { runBundle } from "./harness/runners.ts";
import { output } from "./harness/runtime-suite.ts";
import { endpointsOf, startProofSimulator } from "./harness/simulator.ts";

const RUNTIMES: Runtime[] = ["node-esm", "edge-runtime"];
const PROCESSES = 4;

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

    /** Runs `scenario` in `PROCESSES` processes of `runtime` at once. */
    const inProcesses = async (runtime: Runtime, scenario: string, extra: Record<string, unknown>) => {
      const rest = upstash.rest();
      const input = { sim: endpointsOf(sim), upstash: { url: rest.url, token: rest.token }, ...extra };
      const file = await bundleScenario(scenario, runtime);
      const outcomes = await Promise.all(
        Array.from({ length: PROCESSES }, () => runBundle(runtime, file, input, { timeoutMs: 60_000 })),
      );
      return outcomes.map((outcome) => output(outcome, runtime));
    };

    for (const runtime of RUNTIMES) {
      describe(runtime, () => {
        describe("@upstash/redis runs there: of 4 processes claiming one key with SET NX, one wins", () => {
          it("claims once, and every process runs the script", async () => {
            const outputs = await inProcesses(runtime, "upstash-client", { key: `${upstash.prefix()}claim` });
            expect(outputs.filter((o) => o["claimed"] === true)).toHaveLength(1);
            expect(outputs.filter((o) => o["holderIsMe"] === true)).toHaveLength(1);
            expect(outputs.map((o) => o["count"]).sort()).toEqual([1, 2, 3, 4]);
          });
        });
      });
    }
  },
);
