/**
 * The worker processes of the multi-process Redis suites: each is forked with its configuration in
 * `BUDGET_WORKER`, says `{ ready: true }` once connected and warm, starts at the `startAt` it is sent,
 * and answers `{ report }`. Every worker has a deadline to report, and is ended by its pid after.
 */
import { type ChildProcess, execFileSync, fork } from "node:child_process";
import { join } from "node:path";

const packageDir = join(import.meta.dirname, "..");
/** How long a worker may take to start, connect and warm up on a loaded machine. */
const READY_DEADLINE_MS = 30_000;

/** Builds the package: the workers run the built dist, as a user's processes would. */
export function buildPackage(): void {
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
