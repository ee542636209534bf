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
  kills: number;
  items: number;
  /** The `--journal` flag's value (default: the file beside the manifest). */
  journal?: string | undefined;
  /** Kills land within this many ms of the run's start (default 1500). */
  killWithinMs?: number | undefined;
  /** Runs after each kill, before the next run (e.g. leaves a torn record in the journal). */
  afterKill?: ((manifest: string) => void) | undefined;
}

/** What the loop saw, for the test's note. */
export interface CrashCounts {
  killed: number;
  ambiguous: string[];
  created: number;
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
    let killed = false;
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        killed = true;
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
      resolve({ killed });
    });
  });
}

/** The JSON lines a run printed. */
const outcomesOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { key: string; status: string; ambiguousStep: string });

/** Runs the loop and checks every rule (see the file's comment); answers what it counted. */
export async function crashLoop(loop: CrashLoop): Promise<CrashCounts> {
  const { sim, bin, dir } = loop;
  const manifest = join(dir, "spring.jsonl");
  writeFileSync(manifest, manifestLines(sim, loop.items).join("\n"));
  const env = { ...simulatorEnv(sim), PATH: process.env["PATH"] };
  const journalFlags = loop.journal === undefined ? [] : ["--journal", loop.journal];
  const args = [bin, "batch", "run", manifest, "--json", "--concurrency", "3", ...journalFlags];
  const runOnce = (...flags: string[]) =>
    runWithDeadline(process.execPath, [...args, ...flags], { cwd: dir, env, timeoutMs: 60_000 });
  // Killed runs never repeat an ambiguous step (no --retry-ambiguous): nothing they do may create twice.
  let killed = 0;
  for (const afterMs of fc.sample(fc.integer({ min: 0, max: loop.killWithinMs ?? 1500 }), loop.kills)) {
    const result = await runAndKill(args, { cwd: dir, env, afterMs, deadlineMs: 60_000 });
    if (result.killed) killed += 1;
    loop.afterKill?.(manifest);
  }
  // A run to the end reports every ambiguous step; only those are then repeated, on purpose.
  const reporting = await runOnce();
  expect(reporting.timedOut, reporting.stderr).toBe(false);
  const ambiguous = outcomesOf(reporting.stdout)
    .filter((outcome) => outcome.status === "ambiguous")
    .map((outcome) => `${outcome.key} ${outcome.ambiguousStep}`);
  expect(reporting.code, reporting.stderr).toBe(ambiguous.length > 0 ? 3 : 0);
  if (ambiguous.length > 0) {
    const retried = await runOnce("--retry-ambiguous");
    expect(retried.code, retried.stderr).toBe(0);
  }

  const log = sim.control.requests();
  const created = log.filter((r) => r.method === "POST" && r.path === "/v1/promotions" && r.status === 201);
  const retriedCreations = ambiguous.filter((step) => step.endsWith(" create")).length;
  // No item lost, none created twice unless its creation was reported ambiguous.
  expect(created.length).toBeGreaterThanOrEqual(loop.items);
  expect(created.length).toBeLessThanOrEqual(loop.items + retriedCreations);
  // Every upload that held bytes resumed: once the service accepted an upload's first bytes, no
  // PUT of it starts from byte 0 again. (A first PUT cut by the kill left the service nothing to
  // resume from: sending it again is the resume.)
  const firstBytes = new Map<string, (number | null)[]>();
  for (const r of log.filter(
    (r) => r.method === "PUT" && r.headers["content-range"]?.startsWith("bytes 0-"),
  )) {
    firstBytes.set(r.path, [...(firstBytes.get(r.path) ?? []), r.status]);
  }
  for (const [path, statuses] of firstBytes) {
    const accepted = statuses.findIndex((status) => status !== null && status < 400);
    expect(accepted === -1 ? [] : statuses.slice(accepted + 1), path).toEqual([]);
  }

  // The final state matches the manifest: every item done, each with its own promotion.
  const report = await runWithDeadline(
    process.execPath,
    [bin, "batch", "report", "--journal", loop.journal ?? `${manifest}.journal`, "--json"],
    { cwd: dir, env, timeoutMs: 60_000 },
  );
  expect(report.code, report.stderr).toBe(0);
  const { items } = JSON.parse(report.stdout) as {
    items: { key: string; status: string; promotionId: string; submitStatus: string; evaluationId: string }[];
  };
  expect(items.map((item) => item.key).sort()).toEqual(
    Array.from({ length: loop.items }, (_, i) => `item-${i}`).sort(),
  );
  expect(items.every((item) => item.status === "done")).toBe(true);
  expect(new Set(items.map((item) => item.promotionId)).size).toBe(loop.items);
  for (const item of items) {
    const index = Number(item.key.split("-")[1]);
    if (index % 4 !== 3) expect(item.submitStatus, item.key).not.toBe("");
    if (index % 4 !== 1) expect(item.evaluationId, item.key).not.toBe("");
  }
  return { killed, ambiguous, created: created.length };
}
