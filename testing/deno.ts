/**
 * Runs a script in the real `deno` (the package's dev dependency) for the Deno KV suites: KV on a file
 * in a fresh temporary folder, permissions as narrow as the suite allows (read and write of that folder,
 * network to 127.0.0.1 only, never a prompt), a deadline after which the process is killed by its pid,
 * and the last line of its output read as JSON. Sources run as they are (TypeScript, `.js` specifiers
 * mapped to `.ts`), so a suite needs no build of its own package.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWithDeadline } from "./child-process.ts";

/** A temporary folder for one suite's KV files and Deno's cache; `remove` deletes it. */
export interface KvFolder {
  dir: string;
  /** A fresh KV file path in the folder. */
  file(name: string): string;
  remove(): void;
}

/** Makes a {@link KvFolder}. */
export function kvFolder(): KvFolder {
  const dir = mkdtempSync(join(tmpdir(), "deno-kv-"));
  return {
    dir,
    file: (name) => join(dir, `${name}.sqlite`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Options of {@link runDeno}. */
export interface RunDenoOptions {
  /** The package folder: its `node_modules/.bin/deno` runs, with it as the working directory. */
  packageDir: string;
  /** The script, relative to `packageDir` or absolute. */
  script: string;
  /** Arguments after the script (JSON-encode anything structured). */
  args?: string[];
  /** The only folder the script may read and write; also Deno's cache (`DENO_DIR`), so `Deno.openKv()` lands there. */
  dir: string;
  /** An import map (absolute path), e.g. to resolve the package's own name to its sources. */
  importMap?: string;
  /** Killed by pid past this (default 30 s); the promise then rejects saying so. */
  timeoutMs?: number;
}

/** Runs the script; resolves with the JSON of its last output line, rejects with its output otherwise. */
export async function runDeno(options: RunDenoOptions): Promise<unknown> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const args = [
    "run",
    "--no-prompt",
    "--no-lock",
    "--quiet",
    "--unstable-kv",
    "--unstable-sloppy-imports",
    `--allow-read=${options.dir}`,
    `--allow-write=${options.dir}`,
    "--allow-net=127.0.0.1",
    ...(options.importMap ? [`--import-map=${options.importMap}`] : []),
    options.script,
    ...(options.args ?? []),
  ];
  const result = await runWithDeadline(join(options.packageDir, "node_modules", ".bin", "deno"), args, {
    cwd: options.packageDir,
    env: { ...process.env, DENO_DIR: join(options.dir, "deno-dir"), NO_COLOR: "1" },
    timeoutMs,
  });
  if (result.spawnError) throw new Error(`deno ${options.script}: ${result.spawnError.message}`);
  const last = result.stdout.trim().split("\n").at(-1) ?? "";
  if (!result.timedOut && result.code === 0) {
    try {
      return JSON.parse(last);
    } catch {
      // reported below with the output
    }
  }
  const why = result.timedOut
    ? `was killed after its deadline of ${timeoutMs} ms`
    : `exited with ${result.code ?? result.signal}`;
  throw new Error(
    `deno ${options.script} ${why} without a JSON result\nstdout: ${result.stdout.slice(-2000)}\nstderr: ${result.stderr.slice(-4000)}`,
  );
}

/**
 * Type-checks `script` with `deno check` against Deno's own declarations (for example, that a real
 * `Deno.Kv` fits a store's structural type); rejects with the checker's output when it fails.
 */
export async function denoCheck(options: Omit<RunDenoOptions, "args" | "importMap">): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const result = await runWithDeadline(
    join(options.packageDir, "node_modules", ".bin", "deno"),
    ["check", "--no-lock", "--quiet", "--unstable-kv", "--unstable-sloppy-imports", options.script],
    {
      cwd: options.packageDir,
      env: { ...process.env, DENO_DIR: join(options.dir, "deno-dir"), NO_COLOR: "1" },
      timeoutMs,
    },
  );
  if (result.code === 0 && !result.timedOut) return;
  const why = result.timedOut ? `was killed after its deadline of ${timeoutMs} ms` : "failed";
  throw new Error(`deno check ${options.script} ${why}\n${result.stdout}${result.stderr}`);
}
