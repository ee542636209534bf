/**
 * The one way tests run a child process they wait on: its output collected, a deadline after which it
 * is killed by its pid (SIGKILL), and an outcome that says which of the two ended it.
 */
import { spawn } from "node:child_process";

/** Options of {@link runWithDeadline}. */
export interface RunWithDeadlineOptions {
  cwd: string;
  /** The environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Killed by pid past this many milliseconds. */
  timeoutMs: number;
}

/** How the process ended, and what it wrote. `spawnError` is set when it could not start at all. */
export interface ProcessResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  spawnError?: Error;
}

/** Runs `command` with `args` until it exits or its deadline passes; never rejects. */
export function runWithDeadline(
  command: string,
  args: string[],
  options: RunWithDeadlineOptions,
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(child.pid, "SIGKILL");
    }, options.timeoutMs);
    child.on("error", (spawnError) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code: null, signal: null, timedOut, spawnError });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, signal, timedOut });
    });
  });
}
