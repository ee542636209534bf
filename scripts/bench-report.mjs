#!/usr/bin/env node
// The last step of `pnpm bench`: after turbo has run every package's `bench` script (one at a time),
// each of which writes its own Markdown to bench/results/<name>.md, this assembles them into
// bench/RESULTS.md under one header naming the machine and the date, so the figures of one run read
// together. A results file older than this run's first file is flagged, so stale figures are visible.
// In a smoke run (BENCH_SMOKE=1, see bench-output.mjs) it reads and writes in the smoke folder instead,
// so the committed bench/RESULTS.md is never overwritten with smoke figures.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { repositoryRoot, resultsDir, smoke } from "./bench-output.mjs";

const report = smoke ? join(resultsDir, "RESULTS.md") : join(repositoryRoot, "bench", "RESULTS.md");
const files = existsSync(resultsDir)
  ? readdirSync(resultsDir)
      .filter((f) => f.endsWith(".md") && f !== "RESULTS.md") // the smoke folder holds its report too
      // Package benchmarks first (alphabetically), the bundle-size table last.
      .sort((a, b) => Number(a === "bundle-sizes.md") - Number(b === "bundle-sizes.md") || a.localeCompare(b))
  : [];
if (files.length === 0) {
  console.error(`bench-report: no ${resultsDir}/*.md; run \`pnpm bench\` (each package's bench writes one)`);
  process.exit(1);
}

const now = new Date();
const mtimes = new Map(files.map((f) => [f, writtenAt(join(resultsDir, f))]));
// A file written more than a day before the newest one is from an earlier run.
const newest = Math.max(...[...mtimes.values()].map((d) => d.getTime()));
const stale = (f) => newest - mtimes.get(f).getTime() > 24 * 3600 * 1000;

const cpu = cpus()[0]?.model?.trim() ?? "unknown CPU";
const lines = [
  "# Benchmark results",
  "",
  "Written by `pnpm bench` (scripts/bench-report.mjs); do not edit by hand. Each section is one",
  "package's benchmark, with its peers measured in the same run; methods are described in each section.",
  "",
  `- Machine: ${availableParallelism()} cores (nproc), ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${cpu}`,
  `- Node ${process.version} on ${process.platform}-${process.arch}`,
  `- Date: ${now.toISOString()}`,
  "",
  "| section | file | written |",
  "|---|---|---|",
  ...files.map(
    (f) =>
      `| ${title(f)} | ${smoke ? join(resultsDir, f) : `bench/results/${f}`} | ${mtimes.get(f).toISOString()}${stale(f) ? " (**stale: from an earlier run**)" : ""} |`,
  ),
  "",
];
for (const f of files) {
  // Each file starts with its own "# " title; one level down here so RESULTS.md has a single h1.
  const body = readFileSync(join(resultsDir, f), "utf8").replace(/^(#+) /gm, "#$1 ");
  lines.push(body.trimEnd(), "");
}
writeFileSync(report, `${lines.join("\n")}\n`);
console.log(`bench-report: wrote ${report} from ${files.length} result files`);

/**
 * When a results file was written: its commit's date when the file is committed and unchanged (a
 * checkout gives every file the checkout's mtime, which would pass old figures off as this run's),
 * else its mtime.
 */
function writtenAt(path) {
  try {
    const git = (...args) =>
      execFileSync("git", args, { cwd: repositoryRoot, encoding: "utf8", timeout: 10_000 });
    if (git("status", "--porcelain", "--", path).trim() === "") {
      const committed = git("log", "-1", "--format=%cI", "--", path).trim();
      if (committed) return new Date(committed);
    }
  } catch {
    // Not in a git checkout (or no git): the file's own time.
  }
  return statSync(path).mtime;
}

function title(file) {
  const first = readFileSync(join(resultsDir, file), "utf8")
    .split("\n")
    .find((l) => l.startsWith("#"));
  return first ? first.replace(/^#+\s*/, "") : file;
}
