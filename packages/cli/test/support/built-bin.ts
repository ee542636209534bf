/**
 * Test support: the command built fresh from these sources into a directory of the test's own (so a
 * stale dist/ is never what is tested), and spawned with an environment of the test's own and a
 * deadline.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";

const packageDir = join(import.meta.dirname, "../..");

/** Builds the command into `outDir` (under the package) and returns the path of its bin. */
export function buildBinInto(outDir: string): string {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      join(packageDir, "../../node_modules/typescript/bin/tsc"),
      "-p",
      "tsconfig.build.json",
      "--outDir",
      outDir,
      "--declaration",
      "false",
      "--declarationMap",
      "false",
      "--sourceMap",
      "false",
    ],
    { cwd: packageDir, stdio: "inherit" },
  );
  return join(outDir, "bin.js");
}

/** How a spawned run ended. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from spawn to exit. */
  tookMs: number;
}

/** What `child` prints, once it has exited. */
export function collect(child: ChildProcess, startedAt = Date.now()): Promise<Finished> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => (stdout += chunk));
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr, tookMs: Date.now() - startedAt }));
  });
}

/**
 * Runs `bin` with `args` in `cwd`, with only PATH and `env` for an environment (none of the shell's
 * OTEL_* or PROMO_REVIEW_*); killed after `deadlineMs`, so a hanging command fails its test.
 */
export function runBin(
  bin: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; deadlineMs?: number } = {},
): Promise<Finished> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? packageDir,
    env: { PATH: process.env["PATH"] ?? "", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.deadlineMs ?? 30_000);
  return collect(child, Date.now()).finally(() => clearTimeout(timer));
}
