/**
 * The crash rule of `batch run`, against the simulator: the command runs in a child process killed
 * with SIGKILL at random moments, then is run again until the batch is done. Counted from the
 * simulator's own request log: no promotion created twice unless its creation was reported ambiguous,
 * no item lost, no upload sent again from its first byte, and the final report matching the
 * manifest. A handful of kills here; `PROMO_BATCH_KILLS=200` runs the same loop as the campaign.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWithDeadline } from "../../../../testing/child-process.ts";
import "../../../../testing/fast-check-seed.ts";
import { buildBinInto } from "../../test/support/built-bin.js";
import { simulatorEnv } from "../../test/support/io.js";
import { samplePdf } from "../sample-pdf.js";

/** Runs killed: a handful in the unit suite; `PROMO_BATCH_KILLS=200` runs the campaign (rounds of fresh journals until that many). */
const KILLS = Number(process.env["PROMO_BATCH_KILLS"] ?? 5);
/** Items in the manifest (`PROMO_BATCH_ITEMS=50` for the campaign's manifest). */
const ITEMS = Number(process.env["PROMO_BATCH_ITEMS"] ?? 8);
let sim: Simulator;
let dir: string;
let bin: string;
beforeAll(async () => {
  bin = buildBinInto(join(import.meta.dirname, "../../.test-dist-crash"));
  sim = await startSimulator({
    uploadProcessingDelayMs: 20,
    linkImportDelayMs: 20,
    evaluationDelayMs: 20,
    maxChunkSize: 16 * 1024,
    mainApiLimit: 100_000,
    linkCaptureLimit: 100_000,
  });
  dir = mkdtempSync(join(tmpdir(), "promo-review-crash-"));
  writeFileSync(join(dir, "flyer.pdf"), samplePdf(160 * 1024));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

function manifestLines(): string[] {
  const { products, channels, jurisdictions } = sim.reference;
  const common = {
    promotionName: "Spring",
    productIds: [products[0]!.id],
    channelIds: [channels[0]!.id],
    jurisdictionId: jurisdictions[0]!.id,
  };
  return Array.from({ length: ITEMS }, (_, index) => {
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

/** The JSON lines a run printed before it ended (a killed run may have printed some). */
const outcomesOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { key: string; status: string; ambiguousStep: string });

describe("batch run survives SIGKILL at any moment", () => {
  it(
    `finishes after ${KILLS} kills, creating nothing twice that was not reported ambiguous`,
    async () => {
      const env = { ...simulatorEnv(sim), PATH: process.env["PATH"] };
      const runOnce = (manifest: string, timeoutMs: number, ...flags: string[]) =>
        runWithDeadline(
          process.execPath,
          [bin, "batch", "run", manifest, "--json", "--concurrency", "3", ...flags],
          { cwd: dir, env, timeoutMs },
        );
      // When each run went on, so the log's requests can be told apart by run.
      const runs: { from: number; to: number }[] = [];
      const timed = async <T>(work: () => Promise<T>) => {
        const from = Date.now();
        try {
          return await work();
        } finally {
          runs.push({ from, to: Date.now() });
        }
      };
      type ReportItem = {
        key: string;
        status: string;
        promotionId: string;
        submitStatus: string;
        evaluationId: string;
      };
      let killed = 0;
      let createdByKilledRuns = 0;
      const ambiguous: string[] = [];
      const items: ReportItem[] = [];
      const killsAt = fc.sample(fc.integer({ min: 0, max: 1500 }), KILLS);
      // Rounds of one fresh manifest and journal each, killed until a run ends by itself, then run to
      // the end; rounds go on until KILLS runs were killed (a finished batch leaves nothing to kill).
      for (let round = 0; killed < KILLS && round < KILLS; round += 1) {
        const manifest = join(dir, `spring-${round}.jsonl`);
        writeFileSync(manifest, manifestLines().join("\n"));
        // Killed runs never repeat an ambiguous step (no --retry-ambiguous): nothing they do may create twice.
        while (killed < KILLS) {
          const result = await timed(() =>
            runAndKill([bin, "batch", "run", manifest, "--json", "--concurrency", "3"], {
              cwd: dir,
              env,
              afterMs: killsAt[killed]!,
              deadlineMs: 60_000,
            }),
          );
          if (!result.killed) break;
          killed += 1;
        }
        createdByKilledRuns = sim.control
          .requests()
          .filter((r) => r.method === "POST" && r.path === "/v1/promotions" && r.status === 201).length;
        // A run to the end reports every ambiguous step; only those are then repeated, on purpose.
        const reporting = await timed(() => runOnce(manifest, 60_000));
        expect(reporting.timedOut, reporting.stderr).toBe(false);
        const reported = outcomesOf(reporting.stdout)
          .filter((outcome) => outcome.status === "ambiguous")
          .map((outcome) => `${outcome.key} ${outcome.ambiguousStep}`);
        expect(reporting.code).toBe(reported.length > 0 ? 3 : 0);
        if (reported.length > 0) {
          const retried = await timed(() => runOnce(manifest, 60_000, "--retry-ambiguous"));
          expect(retried.code, retried.stderr).toBe(0);
        }
        ambiguous.push(...reported.map((step) => `round ${round}: ${step}`));
        const report = await runWithDeadline(
          process.execPath,
          [bin, "batch", "report", "--journal", `${manifest}.journal`, "--json"],
          { cwd: dir, env, timeoutMs: 60_000 },
        );
        const roundItems = (JSON.parse(report.stdout) as { items: ReportItem[] }).items;
        expect(roundItems.map((item) => item.key).sort()).toEqual(
          Array.from({ length: ITEMS }, (_, i) => `item-${i}`).sort(),
        );
        items.push(...roundItems);
      }
      expect(killed, "runs killed mid-way").toBe(KILLS);
      const rounds = items.length / ITEMS;

      const log = sim.control.requests();
      // The counts below need the whole log: the simulator keeps its last 10,000 requests.
      expect(log.length).toBeLessThan(10_000);
      const created = log.filter(
        (r) => r.method === "POST" && r.path === "/v1/promotions" && r.status === 201,
      );
      const retriedCreations = ambiguous.filter((step) => step.endsWith(" create")).length;
      // Creations beyond one per item: those whose creation was reported ambiguous (and then
      // repeated on purpose) are allowed; any other is a promotion created twice silently.
      const extra = Math.max(0, created.length - ITEMS * rounds);
      const twiceReported = Math.min(extra, retriedCreations);
      const twiceSilently = extra - twiceReported;

      // Uploads, by the runs that sent them requests: one carried over a kill either resumed (its
      // first byte sent once) or restarted (its first byte sent again).
      const runOf = (time: string) => runs.findIndex((run) => Date.parse(time) <= run.to);
      const uploadRuns = new Map<string, Set<number>>();
      const firstBytes = new Map<string, number>();
      for (const r of log.filter((r) => r.service === "files" && /^\/v1\/uploads\/[^/]+$/.test(r.path))) {
        uploadRuns.set(r.path, (uploadRuns.get(r.path) ?? new Set()).add(runOf(r.time)));
        if (r.method === "PUT" && r.headers["content-range"]?.startsWith("bytes 0-")) {
          firstBytes.set(r.path, (firstBytes.get(r.path) ?? 0) + 1);
        }
      }
      const carried = [...uploadRuns].filter(([, inRuns]) => inRuns.size > 1).map(([path]) => path);
      const restarted = [...firstBytes].filter(([, count]) => count > 1).length;
      const resumed = carried.filter((path) => (firstBytes.get(path) ?? 0) <= 1).length;
      const initiated = log.filter(
        (r) => r.method === "POST" && r.path === "/v1/uploads" && r.status === 201,
      ).length;

      // The final state matches the manifests: every item done, each with its own promotion.
      const lost = items.length - items.filter((item) => item.status === "done" && item.promotionId).length;
      // An item matches its manifest line when done with its own promotion and the steps it asked for.
      const matching = items.filter((item) => {
        const index = Number(item.key.split("-")[1]);
        return (
          item.status === "done" &&
          item.promotionId !== "" &&
          (index % 4 === 3 || item.submitStatus !== "") &&
          (index % 4 === 1 || item.evaluationId !== "")
        );
      }).length;
      console.log(
        `crash summary: kills ${killed}; runs ${runs.length} (re-runs ${runs.length - rounds}) over ${rounds} rounds; ` +
          `items ${ITEMS} a round (${items.length}); ` +
          `promotions created ${created.length} (${createdByKilledRuns} before the last round's kills ended); ` +
          `created twice ${extra} (reported ambiguous ${twiceReported}, not reported ${twiceSilently}); ` +
          `ambiguous reported ${ambiguous.length}${ambiguous.length ? ` (${ambiguous.join(", ")})` : ""}; ` +
          `lost ${lost}; uploads initiated ${initiated}, carried over a kill ${carried.length}: ` +
          `resumed ${resumed}, restarted ${restarted}; final state matching ${matching} of ${items.length}; ` +
          `log entries ${log.length}`,
      );
      // Each rule, from those counts.
      expect(twiceSilently, "promotions created twice without an ambiguous report").toBe(0);
      expect(lost, "items lost").toBe(0);
      expect(restarted, "uploads sent again from their first byte").toBe(0);
      expect(resumed).toBe(carried.length);
      expect(new Set(items.map((item) => item.promotionId)).size).toBe(items.length);
      expect(matching, "items matching their manifest line").toBe(items.length);
    },
    240_000 + KILLS * 25_000,
  );
});
