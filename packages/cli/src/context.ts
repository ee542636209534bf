/**
 * What every command's action works with: the run's io, the global options (settings, `--json`,
 * `--debug`), the printer, and a client made on first use (so `--help` and usage errors never need
 * settings).
 */
import type { PromoReviewClient } from "@promo-review/sdk";
import { type Command, InvalidArgumentError } from "commander";
import { type EnvFile, readEnvFile, withEnvFile } from "./env-file.js";
import { type CliIo, telemetryOf } from "./io.js";
import { configuredSecrets, createOutput, type Output } from "./output.js";
import { cliResumeStore } from "./resume.js";
import { clientFrom, type GlobalOptions } from "./settings.js";

/** One command's view of its run. */
export interface CommandContext {
  io: CliIo;
  globals: GlobalOptions;
  out: Output;
  /** The settings' environment: the process's, over the settings file's `PROMO_REVIEW_*` entries. */
  env: Record<string, string | undefined>;
  /** The process's own environment, without the file (to tell where a setting came from). */
  processEnv: Record<string, string | undefined>;
  /** The settings file read, if any. */
  envFile: EnvFile | undefined;
  /** `{ signal }` when the run has a stop signal, else `{}`: spread into SDK options. */
  signal: { signal?: AbortSignal };
  /** The SDK client from the settings; a missing setting is a usage error naming flag and variable. */
  client(): PromoReviewClient;
}

/** The context of the command whose action is running. */
export function contextOf(command: Command, io: CliIo): CommandContext {
  const globals = command.optsWithGlobals<GlobalOptions>();
  const processEnv = io.env ?? process.env;
  const envFile = readEnvFile(globals.envFile, io.cwd ?? process.cwd());
  const env = withEnvFile(processEnv, envFile);
  let client: PromoReviewClient | undefined;
  return {
    io,
    globals,
    out: createOutput(io, {
      json: Boolean(globals.json),
      debug: Boolean(globals.debug),
      secrets: configuredSecrets(globals, env),
    }),
    env,
    processEnv,
    envFile,
    signal: io.signal ? { signal: io.signal } : {},
    client: () => {
      // Uploads are remembered in files, so that running the same upload again continues it.
      client ??= clientFrom(globals, env, { resumeStore: cliResumeStore(env), ...telemetryOf(io) });
      return client;
    },
  };
}

/** Option parser: an integer from `min` to `max` (a bad value is a usage error, exit code 2). */
export function integerIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

/** Option parser for repeatable options: collects every value in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The help text's example section, shown after the options of every command. */
export function example(...lines: string[]): string {
  return `\nExample:\n${lines.map((line) => `  ${line}`).join("\n")}\n`;
}
