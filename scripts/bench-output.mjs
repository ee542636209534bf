// What every package's benchmark shares: whether it runs in smoke mode, and where its Markdown goes.
//
// `BENCH_SMOKE=1` (CI's `.ci/steps/50-bench-smoke.sh`) runs every benchmark small and once, with no
// bars enforced, only so that a benchmark that no longer runs turns CI red. Its figures mean nothing,
// so they never overwrite the committed bench/results/*.md: they go to `BENCH_SMOKE_DIR` (default: a
// folder under the system's temporary directory), and scripts/bench-report.mjs assembles them there.
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The repository's root. */
export const repositoryRoot = join(import.meta.dirname, "..");

/** Whether this run is a smoke run (`BENCH_SMOKE=1`): small sizes, one round, figures not kept. */
export const smoke = process.env.BENCH_SMOKE === "1";

/** The folder of this run's result files: bench/results, or the smoke folder. */
export const resultsDir = smoke
  ? (process.env.BENCH_SMOKE_DIR ?? join(tmpdir(), "promo-review-bench-smoke"))
  : join(repositoryRoot, "bench", "results");

/** `full` normally, `small` in a smoke run: one place per benchmark that says how it shrinks. */
export function sized(full, small) {
  return smoke ? small : full;
}

/** Writes one benchmark's Markdown (`<name>.md`) where this run's results go; returns its path. */
export function writeResult(name, markdown) {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.md`);
  writeFileSync(path, markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  return path;
}
