/**
 * The crash rule of `batch run`, against the simulator: the command runs in a child process killed
 * with SIGKILL at random moments, then is run again until the batch is done. Counted from the
 * simulator's own request log (test/support/crash-loop.ts): no promotion created twice unless its
 * creation was reported ambiguous, no item lost, no upload sent again from its first byte once the
 * service held its bytes, and the final report matching the manifest. A handful of kills here;
 * `PROMO_BATCH_KILLS=200` runs the same loop as the campaign. The other journals (Redis, a torn
 * file tail) run the same loop in batch-crash-journals.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, it } from "vitest";
import "../../../../testing/fast-check-seed.ts";
import { buildBinInto } from "../../test/support/built-bin.js";
import { CRASH_SIMULATOR, crashLoop, crashSummary } from "../../test/support/crash-loop.js";
import { samplePdf } from "../sample-pdf.js";

/** Kills per run: a handful in the unit suite; `PROMO_BATCH_KILLS=200` runs the campaign. */
const KILLS = Number(process.env["PROMO_BATCH_KILLS"] ?? 5);
// A finished batch leaves nothing to kill: the loop starts rounds with fresh manifests and journals
// until KILLS runs were really killed mid-way.
/** Items in the manifest (`PROMO_BATCH_ITEMS=50` for the campaign's manifest). */
const ITEMS = Number(process.env["PROMO_BATCH_ITEMS"] ?? 8);
let sim: Simulator;
let dir: string;
let bin: string;
beforeAll(async () => {
  bin = buildBinInto(join(import.meta.dirname, "../../.test-dist-crash"));
  sim = await startSimulator(CRASH_SIMULATOR);
  dir = mkdtempSync(join(tmpdir(), "promo-review-crash-"));
  writeFileSync(join(dir, "flyer.pdf"), samplePdf(160 * 1024));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("batch run survives SIGKILL at any moment", () => {
  it(
    `finishes after ${KILLS} runs killed mid-way, creating nothing twice that was not reported ambiguous`,
    async () => {
      const counts = await crashLoop({ sim, bin, dir, kills: KILLS, items: ITEMS });
      console.log(crashSummary("file journal", counts));
    },
    240_000 + KILLS * 20_000,
  );
});
