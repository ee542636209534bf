/**
 * Test support: the crash loop of `batch run` against the simulator, for any journal. The command runs
 * in a child process killed with SIGKILL at random moments, then is run again until the batch is
 * done; what happened is counted from the simulator's own request log: no promotion created twice
 * unless its creation was reported ambiguous, every ambiguous step reported, no item lost, no upload
 * sent again from its first byte once the service held its bytes, and the final report matching the
 * manifest.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Simulator } from "@promo-review/simulator";
import fc from "fast-check";
import { expect } from "vitest";
import { runWithDeadline } from "../../../../testing/child-process.ts";
import { simulatorEnv } from "./io.js";

/** The simulator's settings for a crash loop: quick processing, budgets out of the way. */
export const CRASH_SIMULATOR = {
  uploadProcessingDelayMs: 20,
  linkImportDelayMs: 20,
  evaluationDelayMs: 20,
  maxChunkSize: 16 * 1024,
  mainApiLimit: 100_000,
  linkCaptureLimit: 100_000,
};

/** One crash loop. */
export interface CrashLoop {
  sim: Simulator;
  /** The built command. */
  bin: string;
  /** A directory holding `flyer.pdf`, where the manifest is written. */
  dir: string;
  /** Runs to kill mid-way, over as many rounds as that takes. */
  kills: number;
  /** Items in each round's manifest. */
  items: number;
  /** The `--journal` flag's value for a round, fresh each round (default: the file beside its manifest). */
  journal?: ((round: number) => string) | undefined;
  /** Kills land within this many ms of the run's start (default 1500). */
  killWithinMs?: number | undefined;
  /** Runs after each kill, with the round's journal, before the next run (e.g. leaves a torn record in it). */
  afterKill?: ((journal: string) => void) | undefined;
}

/** What the loop saw, for the test's note: sums over its rounds. */
export interface CrashCounts {
  /** Runs killed while running (a kill that landed after the run ended does not count). */
  kills: number;
  /** Runs of the command: killed, run to the end, and repeating ambiguous steps. */
  runs: number;
  rounds: number;
  /** Items over all rounds. */
  items: number;
  /** Promotions the simulator created. */
  created: number;
  /** Items created twice whose creation was reported ambiguous (then repeated on purpose). */
  createdTwiceReported: number;
  /** Items created twice without such a report (the rule: none). */
  createdTwiceSilently: number;
  /** Every ambiguous step reported: `round N: key step`. */
  ambiguous: string[];
  /** Items with an ambiguous step that the `--retry-ambiguous` run finished. */
  retried: number;
  /** Items not done at a round's end. */
  lost: number;
  /** Uploads that requests of more than one run reached. */
  uploadsCarried: number;
  /** Of those, the ones whose first byte was never sent again once the service had accepted bytes. */
  resumed: number;
  /** Uploads whose first byte was sent again after the service accepted bytes of them (the rule: none). */
  restarted: number;
  /** Items done with their own promotion and every step their line asked for. */
  matching: number;
  elapsedMs: number;
}

function manifestLines(sim: Simulator, items: number): string[] {
  const { products, channels, jurisdictions } = sim.reference;
  const common = {
    promotionName: "Spring",
    productIds: [products[0]!.id],
    channelIds: [channels[0]!.id],
    jurisdictionId: jurisdictions[0]!.id,
  };
  return Array.from({ length: items }, (_, index) => {
    const key = `item-${index}`;
    if (index % 4 === 1) return { ...common, key, fileFormat: "pdf", files: ["flyer.pdf"], submit: true };
    if (index % 4 === 3) {
      return { ...common, key, link: "https://docs.google.com/document/d/1AbCdEf/edit", evaluate: true };
    }
    return { ...common, key, fileFormat: "text", content: `Offer ${index}`, submit: true, evaluate: true };
  }).map((line) => JSON.stringify(line));
}

/**
 * Runs the command and kills it by its pid with SIGKILL `afterMs` after it began running the batch
 * (its "Journal:" line), or at `deadlineMs` at the latest, so every kill lands inside the run.
 */
function runAndKill(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; afterMs: number; deadlineMs: number },
): Promise<{ killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, "SIGKILL");
      }
    };
    const deadline = setTimeout(kill, options.deadlineMs);
    let timer: ReturnType<typeof setTimeout> | undefined;
    child.stderr.on("data", (chunk: Buffer) => {
      if (timer === undefined && chunk.toString("utf8").includes("Journal:"))
        timer = setTimeout(kill, options.afterMs);
    });
    child.once("error", reject);
    child.once("close", () => {
      clearTimeout(deadline);
      clearTimeout(timer);
      // Killed only when the signal ended it: a kill sent after it exited (not yet reaped) does not count.
      resolve({ killed: child.signalCode === "SIGKILL" });
    });
  });
}

/** The JSON lines a run printed (a killed run may have printed some). */
const outcomesOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { key: string; status: string; ambiguousStep: string });

/** One item as `batch report --json` gives it. */
interface ReportItem {
  key: string;
  status: string;
  promotionId: string;
  submitStatus: string;
  evaluationId: string;
}

/** What one round's simulator log says (the log is emptied when a round begins). */
interface RoundLog {
  created: number;
  /** Uploads whose requests came from more than one run (carried over a kill). */
  carried: number;
  /** Carried uploads whose first byte went once the service had accepted bytes of them: none sent again. */
  resumed: number;
  /** Uploads whose first byte was sent again after the service had accepted bytes of them. */
  restarted: number;
}

/**
 * Counts one round's uploads and creations from the simulator's log. `runEnds` are the times each
 * run of the round ended, in order: a request belongs to the first run that had not ended when it
 * arrived (runs follow one another).
 */
function roundLog(sim: Simulator, runEnds: number[]): RoundLog {
  const log = sim.control.requests();
  // The counts need the whole round: the simulator keeps its last 10,000 requests.
  expect(log.length, "requests in one round").toBeLessThan(10_000);
  const created = log.filter((r) => r.method === "POST" && r.path === "/v1/promotions" && r.status === 201);
  const runOf = (time: string) => runEnds.findIndex((end) => Date.parse(time) <= end);
  const runsOf = new Map<string, Set<number>>();
  // Each upload's first-byte PUTs, by their answers: a restart is one sent after one was accepted
  // (a first PUT cut by the kill left the service nothing to resume from: sending it again is the resume).
  const firstBytes = new Map<string, (number | null)[]>();
  for (const r of log.filter((r) => r.service === "files" && /^\/v1\/uploads\/[^/]+$/.test(r.path))) {
    runsOf.set(r.path, (runsOf.get(r.path) ?? new Set()).add(runOf(r.time)));
    if (r.method === "PUT" && r.headers["content-range"]?.startsWith("bytes 0-")) {
      firstBytes.set(r.path, [...(firstBytes.get(r.path) ?? []), r.status]);
    }
  }
  const restartedPaths = new Set(
    [...firstBytes]
      .filter(([, statuses]) => {
        const accepted = statuses.findIndex((status) => status !== null && status < 400);
        return accepted !== -1 && accepted < statuses.length - 1;
      })
      .map(([path]) => path),
  );
  // A restart fails the loop below: say what the service saw of that upload, run by run.
  for (const path of restartedPaths)
    console.log(
      `restarted ${path}:\n${log
        .filter((r) => r.path === path || (r.method === "GET" && r.path.startsWith(path)))
        .map(
          (r) =>
            `  ${r.time} run ${runOf(r.time)} ${r.method} ${r.headers["content-range"] ?? ""} -> ${r.status}`,
        )
        .join("\n")}\nrun ends: ${runEnds.map((t) => new Date(t).toISOString()).join(", ")}`,
    );
  const carried = [...runsOf].filter(([, runs]) => runs.size > 1).map(([path]) => path);
  return {
    created: created.length,
    carried: carried.length,
    resumed: carried.filter((path) => !restartedPaths.has(path)).length,
    restarted: restartedPaths.size,
  };
}

/**
 * Runs rounds of the loop until `kills` runs were really killed mid-way, checks every rule (see the
 * file's comment) and answers what it counted. A round writes a fresh manifest and journal, kills
 * runs until one ends by itself (a finished batch leaves nothing to kill), then runs it to the end
 * (reporting every ambiguous step), repeats those steps with `--retry-ambiguous`, and checks the
 * round's simulator log and report.
 */
export async function crashLoop(loop: CrashLoop): Promise<CrashCounts> {
  const { sim, bin, dir } = loop;
  const started = Date.now();
  const env = { ...simulatorEnv(sim), PATH: process.env["PATH"] };
  const killsAt = fc.sample(fc.integer({ min: 0, max: loop.killWithinMs ?? 1500 }), loop.kills);
  const counts: CrashCounts = {
    kills: 0,
    runs: 0,
    rounds: 0,
    items: 0,
    created: 0,
    createdTwiceReported: 0,
    createdTwiceSilently: 0,
    ambiguous: [],
    retried: 0,
    lost: 0,
    uploadsCarried: 0,
    resumed: 0,
    restarted: 0,
    matching: 0,
    elapsedMs: 0,
  };
  // A round kills at least once unless its first run finishes: a bound on rounds ends a loop whose
  // runs all finish before their kill, with the failure below.
  const maxRounds = 2 * loop.kills + 2;
  for (let round = 0; counts.kills < loop.kills && round < maxRounds; round += 1) {
    await sim.control.reset();
    const manifest = join(dir, `spring-${round}.jsonl`);
    writeFileSync(manifest, manifestLines(sim, loop.items).join("\n"));
    const journal = loop.journal?.(round) ?? `${manifest}.journal`;
    const args = [bin, "batch", "run", manifest, "--json", "--concurrency", "3", "--journal", journal];
    const runEnds: number[] = [];
    const timed = async <T>(work: () => Promise<T>) => {
      try {
        return await work();
      } finally {
        runEnds.push(Date.now());
        counts.runs += 1;
      }
    };
    const runOnce = (...flags: string[]) =>
      timed(() =>
        // A whole round's remaining work in one run, on a machine that may be running CI beside it
        // (one 60 s deadline was missed so): long enough for that, short enough to catch a hang.
        runWithDeadline(process.execPath, [...args, ...flags], { cwd: dir, env, timeoutMs: 180_000 }),
      );
    // Killed runs never repeat an ambiguous step (no --retry-ambiguous): nothing they do may create twice.
    while (counts.kills < loop.kills) {
      const result = await timed(() =>
        runAndKill(args, { cwd: dir, env, afterMs: killsAt[counts.kills]!, deadlineMs: 60_000 }),
      );
      if (!result.killed) break;
      counts.kills += 1;
      loop.afterKill?.(journal);
    }
    // A run to the end reports every ambiguous step; only those are then repeated, on purpose.
    const reporting = await runOnce();
    expect(reporting.timedOut, reporting.stderr).toBe(false);
    const reported = outcomesOf(reporting.stdout)
      .filter((outcome) => outcome.status === "ambiguous")
      .map((outcome) => `${outcome.key} ${outcome.ambiguousStep}`);
    expect(reporting.code, reporting.stderr).toBe(reported.length > 0 ? 3 : 0);
    if (reported.length > 0) {
      const retried = await runOnce("--retry-ambiguous");
      expect(retried.code, retried.stderr).toBe(0);
      const repeated = new Set(reported.map((step) => step.split(" ")[0]));
      counts.retried += outcomesOf(retried.stdout).filter(
        (outcome) => outcome.status === "done" && repeated.has(outcome.key),
      ).length;
    }
    counts.ambiguous.push(...reported.map((step) => `round ${round}: ${step}`));

    const seen = roundLog(sim, runEnds);
    // Creations beyond one per item: those whose creation was reported ambiguous (and then repeated
    // on purpose) are allowed; any other is a promotion created twice silently.
    const extra = Math.max(0, seen.created - loop.items);
    const reportedCreations = reported.filter((step) => step.endsWith(" create")).length;
    counts.created += seen.created;
    counts.createdTwiceReported += Math.min(extra, reportedCreations);
    counts.createdTwiceSilently += extra - Math.min(extra, reportedCreations);
    counts.uploadsCarried += seen.carried;
    counts.resumed += seen.resumed;
    counts.restarted += seen.restarted;

    // The final state matches the manifest: every item done, with its own promotion and the steps
    // its line asked for.
    const report = await runWithDeadline(
      process.execPath,
      [bin, "batch", "report", "--journal", journal, "--json"],
      { cwd: dir, env, timeoutMs: 60_000 },
    );
    expect(report.code, report.stderr).toBe(0);
    const { items } = JSON.parse(report.stdout) as { items: ReportItem[] };
    const keys = new Set(items.map((item) => item.key));
    counts.items += loop.items;
    counts.lost += Array.from({ length: loop.items }, (_, i) => `item-${i}`).filter(
      (key) => !keys.has(key) || items.find((item) => item.key === key)?.status !== "done",
    ).length;
    expect(new Set(items.map((item) => item.promotionId)).size, "one promotion per item").toBe(items.length);
    counts.matching += items.filter((item) => {
      const index = Number(item.key.split("-")[1]);
      return (
        item.status === "done" &&
        item.promotionId !== "" &&
        (index % 4 === 3 || item.submitStatus !== "") &&
        (index % 4 === 1 || item.evaluationId !== "")
      );
    }).length;
    counts.rounds += 1;
  }
  counts.elapsedMs = Date.now() - started;
  // Each rule, from those counts.
  expect(counts.kills, "runs killed mid-way").toBe(loop.kills);
  expect(counts.createdTwiceSilently, "promotions created twice without an ambiguous report").toBe(0);
  expect(counts.lost, "items lost").toBe(0);
  expect(counts.restarted, "uploads sent again from their first byte").toBe(0);
  expect(counts.resumed).toBe(counts.uploadsCarried);
  expect(counts.matching, "items matching their manifest line").toBe(counts.items);
  return counts;
}

/** The one line a crash test prints: every count of its loop. */
export function crashSummary(label: string, counts: CrashCounts): string {
  const ambiguous = counts.ambiguous.length ? ` (${counts.ambiguous.join(", ")})` : "";
  return (
    `crash summary (${label}): kills ${counts.kills}; runs ${counts.runs} over ${counts.rounds} rounds; ` +
    `items ${counts.items}; promotions created ${counts.created}; ` +
    `created twice ${counts.createdTwiceReported + counts.createdTwiceSilently} ` +
    `(reported ambiguous ${counts.createdTwiceReported}, not reported ${counts.createdTwiceSilently}); ` +
    `ambiguous reported ${counts.ambiguous.length}${ambiguous}; retried on purpose ${counts.retried}; ` +
    `lost ${counts.lost}; uploads carried over a kill ${counts.uploadsCarried}: resumed ${counts.resumed}, ` +
    `restarted ${counts.restarted}; final state matching ${counts.matching} of ${counts.items}; ` +
    `elapsed ${Math.round(counts.elapsedMs / 1000)} s`
  );
}
