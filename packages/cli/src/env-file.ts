/**
 * Settings from a file: `--env-file <path>`, else `.env` in the working directory when there is one.
 * Parsed by Node's own `util.parseEnv` (the dotenv format, no dependency). Only `PROMO_REVIEW_*`
 * entries are taken: a project's `.env` holds other things that are none of this command's business.
 * Precedence is flag > environment > file, so a file never overrides what the shell says.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { UsageError } from "./usage-error.js";

type Environment = Record<string, string | undefined>;

/** The file the settings came from, and its `PROMO_REVIEW_*` entries. */
export interface EnvFile {
  path: string;
  values: Record<string, string>;
}

/**
 * Reads the settings file: `explicit` (a missing one is a usage error), else `.env` in `cwd` when
 * present (absent is fine).
 */
export function readEnvFile(explicit: string | undefined, cwd: string): EnvFile | undefined {
  const path = explicit ?? join(cwd, ".env");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (explicit === undefined) return undefined;
    throw new UsageError(`Cannot read the settings file ${explicit}`, [
      {
        field: "--env-file",
        message: `${explicit}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      },
    ]);
  }
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (name.startsWith("PROMO_REVIEW_") && value !== undefined) values[name] = value;
  }
  return { path, values };
}

/** The environment the settings are read from: the file's entries under the process's non-empty ones. */
export function withEnvFile(env: Environment, file: EnvFile | undefined): Environment {
  if (!file) return env;
  const merged: Environment = { ...file.values };
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (value.trim() !== "" || merged[name] === undefined)) merged[name] = value;
  }
  return merged;
}
