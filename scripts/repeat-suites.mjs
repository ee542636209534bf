#!/usr/bin/env node
/**
 * Runs packages' test suites again and again, to find tests that depend on an order or a timing the
 * code does not promise: `node scripts/repeat-suites.mjs --times 10 [--packages http,rate-budget]`.
 *
 * Each run is the package's own `test` script (`pnpm --filter <pkg> test`, coverage and every config it
 * names), with `CI=true` so that no suite skips. A run that outlives `--deadline-min` (default 30) is
 * ended (its process group, which this script started) and counted as failed. One line per run goes to
 * stdout and, as JSON, to `--log` (default `repeat-suites.jsonl`); the last line is the tally per package.
 * Each line names the commit the runs were made on (and whether the work tree had changes), so runs
 * of one commit can be counted together across several invocations.
 * The exit code is 1 when any run failed.
 */
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    times: { type: "string", default: "10" },
    packages: { type: "string" },
    "deadline-min": { type: "string", default: "30" },
    log: { type: "string", default: "repeat-suites.jsonl" },
  },
});

const root = new URL("..", import.meta.url).pathname;
const times = Number(values.times);
const deadlineMs = Number(values["deadline-min"]) * 60_000;
if (!Number.isInteger(times) || times < 1) throw new Error(`--times must be a whole number of runs, got "${values.times}"`);
if (!(deadlineMs > 0)) throw new Error(`--deadline-min must be a positive number of minutes, got "${values["deadline-min"]}"`);

const all = readdirSync(join(root, "packages")).filter((name) => {
  try {
    return Boolean(JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")).scripts?.test);
  } catch {
    return false;
  }
});
const chosen = values.packages ? values.packages.split(",").map((name) => name.trim()) : all;
const unknown = chosen.filter((name) => !all.includes(name));
if (unknown.length > 0) throw new Error(`no package with a test script: ${unknown.join(", ")} (known: ${all.join(", ")})`);

/** One run of one package's suite: passed or not, how long, and the tail of its output when it failed. */
function runSuite(name) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn("npx", ["-y", "pnpm@10.34.9", "--filter", `@promo-review/${name}`, "test"], {
      cwd: root,
      env: { ...process.env, CI: "true", FORCE_COLOR: "0" },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (chunk) => {
      output = (output + chunk).slice(-20_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid, "SIGKILL");
    }, deadlineMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const failedLines = output.split("\n").filter((line) => /FAIL|✗|×|AssertionError|Error:/.test(line));
      resolve({
        passed: code === 0 && !timedOut,
        seconds: Math.round((Date.now() - started) / 1000),
        ...(timedOut ? { timedOut: true } : {}),
        ...(code === 0 ? {} : { failures: failedLines.slice(0, 12) }),
      });
    });
  });
}

/** The commit under test, `+changes` when the work tree differs from it: the runs speak for that tree only. */
function treeUnderTest() {
  const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", timeout: 30_000 }).trim();
  const commit = git("rev-parse", "--short", "HEAD");
  return git("status", "--porcelain", "--untracked-files=no") === "" ? commit : `${commit}+changes`;
}
const tree = treeUnderTest();

const tally = Object.fromEntries(chosen.map((name) => [name, { passed: 0, failed: 0 }]));
for (let round = 1; round <= times; round++) {
  for (const name of chosen) {
    const result = await runSuite(name);
    tally[name][result.passed ? "passed" : "failed"]++;
    const record = { round, package: name, tree, ...result, at: new Date().toISOString() };
    appendFileSync(values.log, `${JSON.stringify(record)}\n`);
    console.log(`round ${round}/${times} ${name}: ${result.passed ? "passed" : "FAILED"} in ${result.seconds} s`);
    if (!result.passed) for (const line of result.failures ?? []) console.log(`    ${line}`);
  }
}
appendFileSync(values.log, `${JSON.stringify({ tree, tally })}\n`);
console.log(JSON.stringify(tally));
process.exitCode = Object.values(tally).some((count) => count.failed > 0) ? 1 : 0;
