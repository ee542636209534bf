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

/** Kills per run: a handful in the unit suite; `PROMO_BATCH_KILLS=200` runs the campaign. */
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
      const manifest = join(dir, "spring.jsonl");
      writeFileSync(manifest, manifestLines().join("\n"));
      const env = { ...simulatorEnv(sim), PATH: process.env["PATH"] };
      const runOnce = (timeoutMs: number, ...flags: string[]) =>
        runWithDeadline(
          process.execPath,
          [bin, "batch", "run", manifest, "--json", "--concurrency", "3", ...flags],
          {
            cwd: dir,
            env,
            timeoutMs,
          },
        );
      // Killed runs never repeat an ambiguous step (no --retry-ambiguous): nothing they do may create twice.
      let killed = 0;
      for (const afterMs of fc.sample(fc.integer({ min: 0, max: 1500 }), KILLS)) {
        const result = await runAndKill([bin, "batch", "run", manifest, "--json", "--concurrency", "3"], {
          cwd: dir,
          env,
          afterMs,
          deadlineMs: 60_000,
        });
        if (result.killed) killed += 1;
      }
      const createdByKilledRuns = sim.control
        .requests()
        .filter((r) => r.method === "POST" && r.path === "/v1/promotions" && r.status === 201).length;
      // A run to the end reports every ambiguous step; only those are then repeated, on purpose.
      const reporting = await runOnce(60_000);
      expect(reporting.timedOut, reporting.stderr).toBe(false);
      const ambiguous = outcomesOf(reporting.stdout)
        .filter((outcome) => outcome.status === "ambiguous")
        .map((outcome) => `${outcome.key} ${outcome.ambiguousStep}`);
      expect(reporting.code).toBe(ambiguous.length > 0 ? 3 : 0);
      if (ambiguous.length > 0) {
        const retried = await runOnce(60_000, "--retry-ambiguous");
        expect(retried.code, retried.stderr).toBe(0);
      }
      console.log(
        `crash test: ${killed} of ${KILLS} runs killed mid-way, ${createdByKilledRuns} of ${ITEMS} promotions created before the kills ended; ambiguous steps reported: ${ambiguous.length} (${ambiguous.join(", ")})`,
      );

      const log = sim.control.requests();
      const created = log.filter(
        (r) => r.method === "POST" && r.path === "/v1/promotions" && r.status === 201,
      );
      const retriedCreations = ambiguous.filter((step) => step.endsWith(" create")).length;
      // No item lost, none created twice unless its creation was reported ambiguous.
      expect(created.length).toBeGreaterThanOrEqual(ITEMS);
      expect(created.length).toBeLessThanOrEqual(ITEMS + retriedCreations);
      // Every upload that held bytes resumed: no upload id was sent its first byte twice.
      const firstBytes = new Map<string, number>();
      for (const r of log.filter(
        (r) => r.method === "PUT" && r.headers["content-range"]?.startsWith("bytes 0-"),
      )) {
        firstBytes.set(r.path, (firstBytes.get(r.path) ?? 0) + 1);
      }
      for (const [path, count] of firstBytes) expect(count, path).toBe(1);

      // The final state matches the manifest: every item done, each with its own promotion.
      const report = await runWithDeadline(
        process.execPath,
        [bin, "batch", "report", "--journal", `${manifest}.journal`, "--json"],
        {
          cwd: dir,
          env,
          timeoutMs: 60_000,
        },
      );
      const items = (
        JSON.parse(report.stdout) as {
          items: {
            key: string;
            status: string;
            promotionId: string;
            submitStatus: string;
            evaluationId: string;
          }[];
        }
      ).items;
      expect(items.map((item) => item.key).sort()).toEqual(
        Array.from({ length: ITEMS }, (_, i) => `item-${i}`).sort(),
      );
      expect(items.every((item) => item.status === "done")).toBe(true);
      expect(new Set(items.map((item) => item.promotionId)).size).toBe(ITEMS);
      for (const item of items) {
        const index = Number(item.key.split("-")[1]);
        if (index % 4 !== 3) expect(item.submitStatus, item.key).not.toBe("");
        if (index % 4 !== 1) expect(item.evaluationId, item.key).not.toBe("");
      }
    },
    240_000 + KILLS * 15_000,
  );
});
