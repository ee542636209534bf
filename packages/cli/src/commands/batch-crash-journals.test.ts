/**
 * The crash rule of `batch run` (see batch-crash.test.ts) on the other journals: a journal on Redis
 * (`--journal redis://...`), and a file journal left with a torn record at its end after every kill,
 * as a crash in the middle of a write leaves it. Each runs the same SIGKILL loop and counts from the
 * simulator's own log (test/support/crash-loop.ts). A handful of kills here; `PROMO_BATCH_KILLS` and
 * `PROMO_BATCH_ITEMS` raise them.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "../../../../testing/fast-check-seed.ts";
import { redisAvailable, startRedis, type TestRedis } from "../../../../testing/redis-server.ts";
import { buildBinInto } from "../../test/support/built-bin.js";
import { CRASH_SIMULATOR, crashLoop, crashSummary } from "../../test/support/crash-loop.js";
import { samplePdf } from "../sample-pdf.js";

const KILLS = Number(process.env["PROMO_BATCH_KILLS"] ?? 4);
const ITEMS = Number(process.env["PROMO_BATCH_ITEMS"] ?? 8);
const TIMEOUT_MS = 240_000 + KILLS * 20_000;

let bin: string;
beforeAll(() => {
  bin = buildBinInto(join(import.meta.dirname, "../../.test-dist-crash-journals"));
}, 120_000);

/** Runs `test` with a fresh simulator and a directory holding the manifest's file; both go after it. */
async function withWork(test: (work: { sim: Simulator; dir: string }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "promo-review-crash-journal-"));
  writeFileSync(join(dir, "flyer.pdf"), samplePdf(160 * 1024));
  const sim = await startSimulator(CRASH_SIMULATOR);
  try {
    await test({ sim, dir });
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.runIf(redisAvailable("cli batch crash loop on a Redis journal"))(
  "a journal on Redis survives SIGKILL at any moment",
  () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    }, 60_000);
    afterAll(async () => {
      await redis?.stop();
    });

    it(
      `finishes after ${KILLS} kills: nothing created twice unless reported ambiguous, nothing lost, uploads resumed`,
      async () => {
        await withWork(async ({ sim, dir }) => {
          // A short lease: each re-run waits at most that long for the killed runner's lease.
          // One journal per round, as each round is a batch of its own.
          const journal = (round: number) =>
            `redis://127.0.0.1:${redis.port}/0?name=crash-${process.pid}-${round}&lease-ttl=1`;
          const counts = await crashLoop({ sim, bin, dir, kills: KILLS, items: ITEMS, journal });
          console.log(crashSummary("Redis journal", counts));
        });
      },
      TIMEOUT_MS,
    );
  },
);

describe("a file journal with a torn last record goes on from its last whole record", () => {
  it(
    `finishes after ${KILLS} kills, each followed by a torn record at the journal's end`,
    async () => {
      await withWork(async ({ sim, dir }) => {
        const torn: number[] = [];
        const counts = await crashLoop({
          sim,
          bin,
          dir,
          kills: KILLS,
          items: ITEMS,
          // A file journal's run is quick: kills early enough to land inside it.
          killWithinMs: 600,
          // What a crash in the middle of writing a record leaves: some of its bytes, no line end.
          // The record was never acknowledged, so its request was never sent.
          afterKill: (path) => {
            const record = `0badc0de ${JSON.stringify({ type: "intent", key: "item-0", step: "create", at: Date.now() })}`;
            const [cut] = fc.sample(fc.integer({ min: 1, max: record.length }), 1);
            appendFileSync(path, record.slice(0, cut));
            torn.push(readFileSync(path).length);
          },
        });
        console.log(crashSummary("file journal, a torn record after every kill", counts));
        expect(torn).toHaveLength(KILLS);
      });
    },
    TIMEOUT_MS,
  );
});
