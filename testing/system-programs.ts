/**
 * The system programs some suites start (redis-server, chromium): where they are, and the one rule for
 * a suite that needs one that is absent. Outside CI such a suite skips with a loud message; with
 * `CI=true` it fails instead, because CI installs them. This file imports nothing from vitest, so the
 * shared vitest configuration can ask the same questions when it decides what coverage measures.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/** A program some suites need, and the one line that tells a reader how to get it. */
export type SystemProgram = "redis-server" | "redis-cli" | "chromium";

const INSTALL: Record<SystemProgram, string> = {
  "redis-server": "apt-get install redis-server",
  "redis-cli": "apt-get install redis-tools",
  chromium: "apt-get install chromium",
};

/**
 * Where a program is: the first executable of that name on PATH, else in /usr/bin or /usr/local/bin
 * (where apt puts it, so a suite finds it even when the test runner's PATH is trimmed).
 */
export function findProgram(program: SystemProgram): string | undefined {
  const dirs = [
    ...(process.env["PATH"] ?? "").split(delimiter).filter(Boolean),
    "/usr/bin",
    "/usr/local/bin",
  ];
  for (const dir of dirs) {
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether CI forbids skipping (`CI=true`, as `.ci/run` sets it). */
export function skippingForbidden(): boolean {
  return process.env["CI"] === "true";
}

/**
 * Whether a suite needing `program` runs. Prints a loud warning when it does not; throws under CI,
 * where nothing may skip.
 */
export function programAvailable(program: SystemProgram, suite: string): boolean {
  if (findProgram(program)) return true;
  if (skippingForbidden())
    throw new Error(`${suite}: ${program} is not installed, and CI=true forbids skipping`);
  console.warn(
    `\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n` +
      `!!! ${suite}: SKIPPED, ${program} not found.\n` +
      `!!! Install it (${INSTALL[program]}) to run it.\n` +
      `!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n`,
  );
  return false;
}
