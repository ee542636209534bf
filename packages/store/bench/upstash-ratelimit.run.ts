/**
 * upstashStore's exact sliding window against `@upstash/ratelimit`'s sliding window, on the same local
 * Upstash REST server (testing/upstash-rest.ts) in front of one redis-server, in one run. Each limiter
 * has a REST server of its own in front of that Redis, so each one's round trips are counted apart,
 * and every decision Redis answers is heard there with its time, on one clock, in the order Redis ran
 * them: the most admissions in any window of the limit's length is read from those times.
 *
 * - The burst: a 60/min limit, 4 processes with 4 loops each on one key, both limiters at once (each
 *   its own key), starting three quarters into a minute (where a fixed window's count resets), for a
 *   minute and a quarter. A refused loop waits as its limiter says.
 * - The throughput: a limit that never binds, 4 processes with 16 decisions in flight each, one
 *   limiter at a time: decisions per second and round trips per decision.
 *
 * Run by `pnpm bench` (bench/vitest.upstash.config.ts); `BENCH_SMOKE=1` shrinks the minute to 3 s and
 * the throughput run to 0.5 s. Writes bench/results/upstash-ratelimit.md. Figures, never asserted.
 */
import { type ChildProcess, fork } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
// @ts-expect-error: a plain .mjs helper of the repository, typed by use here.
import { sized, writeResult } from "../../../scripts/bench-output.mjs";
import { redisAvailable, startRedis, type TestRedis } from "../../../testing/redis-server.ts";
import {
  type ObservedReply,
  startUpstashRest,
  type UpstashRest,
  type UpstashRoundTrip,
} from "../../../testing/upstash-rest.ts";
import { maxInAnyWindow } from "../../../testing/windows.ts";

type Limiter = "ours" | "theirs";
const LIMITERS: Limiter[] = ["ours", "theirs"];
const NAMES: Record<Limiter, string> = {
  ours: "`upstashStore` (`@promo-review/store/upstash`), exact sliding window",
  theirs: "`@upstash/ratelimit` 2.2, `Ratelimit.slidingWindow`",
};
const PROCESSES = 4;
const LIMIT = 60;
const WINDOW_MS: number = sized(60_000, 3_000);
const THROUGHPUT_MS: number = sized(3_000, 500);
/** How long a worker may take to start and warm up, and past its end to report, before it is killed. */
const WORKER_DEADLINE_MS = 30_000;

interface Counts {
  decisions: number;
  admissions: number;
  /** Calls that failed (none expected: a long deadline, a local server). */
  failed: number;
}

/** Forks the workers of one limiter, waits until each is warm, runs them from `startAt` to `endAt`. */
async function runWorkers(options: {
  limiter: Limiter;
  rest: UpstashRest;
  key: string;
  limit: number;
  inFlight: number;
  startAt: () => number;
  runMs: number;
}): Promise<Counts> {
  const children: ChildProcess[] = [];
  const config = {
    limiter: options.limiter,
    url: options.rest.url,
    token: options.rest.token,
    key: options.key,
    prefix: `bench-${options.limiter}:${Date.now()}:`,
    limit: options.limit,
    windowMs: WINDOW_MS,
    inFlight: options.inFlight,
  };
  const messages = (child: ChildProcess, wanted: "ready" | "report") =>
    new Promise<Counts | undefined>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker ${child.pid}: no ${wanted} in time`)),
        WORKER_DEADLINE_MS + options.runMs + 90_000,
      );
      child.on("message", (m: { ready?: boolean; report?: Counts }) => {
        if ((wanted === "ready" && m.ready) || (wanted === "report" && m.report)) {
          clearTimeout(timer);
          resolve(m.report);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`worker ${child.pid} exited with ${code} before its ${wanted}`));
      });
    });
  try {
    const reports: Promise<Counts | undefined>[] = [];
    const ready: Promise<unknown>[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const child = fork(join(import.meta.dirname, "upstash-worker.mjs"), {
        env: { ...process.env, UPSTASH_BENCH: JSON.stringify(config) },
        stdio: "inherit",
      });
      children.push(child);
      ready.push(messages(child, "ready"));
      reports.push(messages(child, "report"));
      for (const p of reports) p.catch(() => {});
    }
    await Promise.all(ready);
    // The warm-up's round trips are not the run's.
    options.rest.resetCounts();
    const startAt = options.startAt();
    for (const child of children) child.send({ startAt, endAt: startAt + options.runMs });
    const counts = (await Promise.all(reports)) as Counts[];
    return counts.reduce((sum, c) => ({
      decisions: sum.decisions + c.decisions,
      admissions: sum.admissions + c.admissions,
      failed: sum.failed + c.failed,
    }));
  } finally {
    // Each ends by itself once it reported; one that did not is ended by its pid.
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

/** Whether Redis admitted this decision: our script answers {1}; ratelimit's {remaining, limit}, admitted when remaining >= 0. */
function admitted(limiter: Limiter, { command, reply }: ObservedReply): boolean {
  const name = command[0]!.toLowerCase();
  if ((name !== "evalsha" && name !== "eval") || !Array.isArray(reply)) return false;
  if (limiter === "ours") {
    const op = command[3 + Number(command[2])];
    return op === "take" && reply[0] === 1;
  }
  return typeof reply[0] === "number" && reply[0] >= 0 && reply.length === 2;
}

/** A command's kind: our script's operation (take, settle, pause, forget), else the command's name. */
function kindOf({ command }: ObservedReply): string {
  const name = command[0]!.toLowerCase();
  if (name === "evalsha" || name === "eval") {
    const op = command[3 + Number(command[2])];
    if (op === "take" || op === "settle" || op === "pause" || op === "forget") return `script ${op}`;
  }
  return name;
}

/** The round trips of a run: how many carried one command, how many several, and the commands by kind. */
function carriedBy(trips: readonly UpstashRoundTrip[], kinds: ReadonlyMap<string, number>): string {
  const alone = trips.filter((t) => t.commands.length === 1).length;
  const batched = trips.length - alone;
  const inBatches = trips.reduce((n, t) => n + (t.commands.length > 1 ? t.commands.length : 0), 0);
  const byKind = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ");
  return `${trips.length} requests, ${alone} with one command and ${batched} pipelined (${inBatches} commands); commands: ${byKind}`;
}

/** The next moment three quarters into a window (windows counted from the epoch, as ratelimit's are), at least `leadMs` away. */
function lateInAWindow(leadMs: number): number {
  const at = Math.floor((Date.now() + leadMs) / WINDOW_MS) * WINDOW_MS + 0.75 * WINDOW_MS;
  return at >= Date.now() + leadMs ? at : at + WINDOW_MS;
}

const per = (n: number, d: number) => (d === 0 ? "–" : (n / d).toFixed(2));

describe.runIf(redisAvailable("store Upstash benchmark"))("upstashStore against @upstash/ratelimit", () => {
  let redis: TestRedis;
  const rests = {} as Record<Limiter, UpstashRest>;
  beforeAll(async () => {
    redis = await startRedis();
    for (const limiter of LIMITERS) rests[limiter] = await startUpstashRest({ redisPort: redis.port });
  });
  afterAll(async () => {
    for (const limiter of LIMITERS) await rests[limiter]?.close();
    await redis?.stop();
  });

  it("a 60/min limit under a burst from 4 processes, and decisions per second", async () => {
    const loadAtStart = loadavg()[0]!;
    // The burst, both limiters at once.
    let shared: number | undefined;
    const heard = { ours: [] as number[], theirs: [] as number[] };
    const kinds = { ours: new Map<string, number>(), theirs: new Map<string, number>() };
    const stops = LIMITERS.map((limiter) =>
      rests[limiter].observe((reply) => {
        if (admitted(limiter, reply)) heard[limiter].push(reply.at);
        // The warm-ups (before the start) are not the run's.
        if (shared === undefined || reply.at < shared) return;
        const kind = kindOf(reply);
        kinds[limiter].set(kind, (kinds[limiter].get(kind) ?? 0) + 1);
      }),
    );
    const burstMs = 1.25 * WINDOW_MS;
    const startAt = () => (shared ??= lateInAWindow(2_000));
    const burst = await Promise.all(
      LIMITERS.map((limiter) =>
        runWorkers({
          limiter,
          rest: rests[limiter],
          key: "burst",
          limit: LIMIT,
          inFlight: 4,
          startAt,
          runMs: burstMs,
        }),
      ),
    );
    const burstTrips = LIMITERS.map((limiter) => rests[limiter].roundTrips.length);
    const carried = LIMITERS.map((limiter) => carriedBy(rests[limiter].roundTrips, kinds[limiter]));
    for (const stop of stops) stop();
    // Each worker's warm-up decision (on another key) ran before the start: only the run's count.
    const most = LIMITERS.map((limiter) =>
      maxInAnyWindow(
        heard[limiter].filter((at) => at >= shared!),
        WINDOW_MS,
      ),
    );

    // The throughput, one limiter at a time, with a limit that never binds.
    const throughput: { rate: number; trips: number; decisions: number; failed: number }[] = [];
    for (const limiter of LIMITERS) {
      const rest = rests[limiter];
      const counts = await runWorkers({
        limiter,
        rest,
        key: "throughput",
        limit: 1_000_000_000,
        inFlight: 16,
        startAt: () => Date.now() + 500,
        runMs: THROUGHPUT_MS,
      });
      throughput.push({
        rate: counts.decisions / (THROUGHPUT_MS / 1000),
        trips: rest.roundTrips.length,
        decisions: counts.decisions,
        failed: counts.failed,
      });
    }

    const windowText = WINDOW_MS === 60_000 ? "60/min" : `60 per ${WINDOW_MS / 1000} s (smoke run)`;
    const lines = [
      "# @promo-review/store: Upstash, against @upstash/ratelimit",
      "",
      `Node ${process.version}, load average ${loadAtStart.toFixed(1)} at the start, ${new Date().toISOString()}. ` +
        `Both limiters over \`@upstash/redis\` 1.39 with its defaults (auto-pipelining on) and each with its own defaults ` +
        `(ratelimit: its ephemeral cache on, no analytics), against the local Upstash REST server (\`testing/upstash-rest.ts\`) ` +
        `in front of one redis-server on 127.0.0.1; each limiter has a REST server of its own on that Redis, which counts its ` +
        `round trips (HTTP requests) and hears every decision Redis answered with its time. ` +
        `**Burst**: a ${windowText} limit, ${PROCESSES} processes with 4 loops each on one key, both limiters at once, ` +
        `starting three quarters into a window (as ratelimit counts windows, from the epoch) and running ${burstMs / 1000} s; ` +
        `a refused loop waits as its limiter says (ours \`waitMs\`, ratelimit until \`reset\`, as its \`blockUntilReady\` does). ` +
        `"Most in any window" is the most admissions Redis granted within any ${WINDOW_MS / 1000} s. ` +
        `**Throughput**: a limit that never binds, ${PROCESSES} processes with 16 decisions in flight each, ` +
        `${THROUGHPUT_MS / 1000} s, one limiter at a time.`,
      "",
      "| limiter | burst: admissions / decisions (failed calls) | burst: most admissions in any window (limit 60) | burst: round trips per decision | throughput: decisions per second | throughput: round trips per decision |",
      "| --- | --- | --- | --- | --- | --- |",
      ...LIMITERS.map(
        (limiter, i) =>
          `| ${NAMES[limiter]} | ${burst[i]!.admissions} / ${burst[i]!.decisions} (${burst[i]!.failed + throughput[i]!.failed}) | **${most[i]}** | ${per(burstTrips[i]!, burst[i]!.decisions)} | ${throughput[i]!.rate.toFixed(0)} | ${per(throughput[i]!.trips, throughput[i]!.decisions)} |`,
      ),
      "",
      "Where the burst's round trips went (each request counted once, whatever it carried; the commands Redis ran, by kind):",
      "",
      ...LIMITERS.map((limiter, i) => `- ${NAMES[limiter]}: ${carried[i]}`),
      "",
    ];
    const text = lines.join("\n");
    writeResult("upstash-ratelimit", text);
    console.log(text);
  });
});
