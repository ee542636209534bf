/**
 * The worker processes of the multi-process Redis suites: each is forked with its configuration in
 * `BUDGET_WORKER`, says `{ ready: true }` once connected and warm, starts at the `startAt` it is sent,
 * and answers `{ report }`. Every worker has a deadline to report, and is ended by its pid after.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const packageDir = join(import.meta.dirname, "..");
/** How long a worker may take to start, connect and warm up on a loaded machine. */
const READY_DEADLINE_MS = 30_000;

/** The newest modification time of the files under `dir` whose names pass `keep` (0 when none). */
function newest(dir: string, keep: (name: string) => boolean): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !keep(entry.name)) continue;
    latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/**
 * Builds the package: the workers run the built dist, as a user's processes would. Skipped when dist
 * is newer than every source (the suites of one run each ask, and one build serves them all).
 */
export function buildPackage(): void {
  const dist = join(packageDir, "dist");
  const sources = newest(
    join(packageDir, "src"),
    (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"),
  );
  if (existsSync(dist) && statSync(join(dist, "index.js"), { throwIfNoEntry: false }) !== undefined) {
    const built = Math.min(
      statSync(join(dist, "index.js")).mtimeMs,
      statSync(join(dist, "redis.js"), { throwIfNoEntry: false })?.mtimeMs ?? 0,
    );
    if (built > sources) return;
  }
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: packageDir, stdio: "inherit" });
}

/** Forked workers, ready to start together. */
export interface Workers<R> {
  /** Resolves once every worker is ready. */
  ready: Promise<void>;
  /** Tells every worker to start at `startAt` (ms since the epoch), and resolves to their reports. */
  start(startAt: number): Promise<R[]>;
  /** Ends, by pid, every worker still running. */
  stop(): void;
}

/** Forks `count` copies of `test/<file>` with `config`; each must report within `reportDeadlineMs` of its start. */
export function forkWorkers<R>(options: {
  file: string;
  count: number;
  config: unknown;
  reportDeadlineMs: number;
}): Workers<R> {
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  const reports: Promise<R>[] = [];
  let started: () => void = () => {};
  const startSignal = new Promise<void>((resolve) => {
    started = resolve;
  });
  for (let i = 0; i < options.count; i++) {
    const child = fork(join(packageDir, "test", options.file), {
      env: { ...process.env, BUDGET_WORKER: JSON.stringify(options.config) },
      stdio: "inherit",
    });
    children.push(child);
    const exited = new Promise<never>((_, reject) =>
      child.once("exit", (code) =>
        reject(new Error(`worker ${child.pid} exited with ${code} before reporting`)),
      ),
    );
    exited.catch(() => {});
    ready.push(
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`worker ${child.pid} was not ready within ${READY_DEADLINE_MS} ms`)),
          READY_DEADLINE_MS,
        );
        child.once("message", () => {
          clearTimeout(timer);
          resolve();
        });
        exited.catch((error: unknown) => {
          clearTimeout(timer);
          reject(error);
        });
      }),
    );
    reports.push(
      new Promise<R>((resolve, reject) => {
        child.on("message", (m: { report?: R }) => {
          if (m.report !== undefined) resolve(m.report);
        });
        exited.catch(reject);
        void startSignal.then(() => {
          const timer = setTimeout(
            () =>
              reject(new Error(`worker ${child.pid} did not report within ${options.reportDeadlineMs} ms`)),
            options.reportDeadlineMs,
          );
          const clear = (): void => clearTimeout(timer);
          child.once("exit", clear);
          child.on("message", (m: { report?: R }) => {
            if (m.report !== undefined) clear();
          });
        });
      }),
    );
  }
  return {
    ready: Promise.all(ready).then(() => {}),
    start: (startAt) => {
      for (const child of children) child.send({ startAt });
      started();
      return Promise.all(reports);
    },
    stop: () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill();
    },
  };
}
