/**
 * How results and errors are printed: human text by default, one JSON document with `--json` (so
 * scripts can parse stdout), and errors that show the code, the field and the correlation id without a
 * stack trace unless `--debug` asks for one.
 */
import { redactorFor, redactValue } from "@promo-review/errors/internal";
import { ENVIRONMENT_VARIABLES, isPromoReviewError } from "@promo-review/sdk";
import { colorsFor } from "./colors.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { UsageError } from "./usage-error.js";

/** Prints for one run of the command. */
export interface Output {
  /** Whether `--json` was given. */
  readonly json: boolean;
  /** Prints a command's result: `value` as JSON with `--json`, else the human lines. */
  result(value: unknown, human: () => string[]): void;
  /** A progress note or notice for people: always stderr, so stdout is the result alone. */
  note(text: string): void;
  /** Prints a failure and returns the exit code it deserves. */
  failure(error: unknown): number;
}

/** What the printer needs to know about the run. */
export interface OutputOptions {
  json: boolean;
  debug: boolean;
  /**
   * The configured secrets (see {@link configuredSecrets}): never printed, whatever the service
   * echoes. Errors lose labelled credentials (`Bearer …`, `sig=…`) too; results only these values,
   * so that a printed `statusUrl` stays usable.
   */
  secrets?: readonly string[];
}

/**
 * The secrets of a run: the API key and webhook secrets from the flags and the environment (every one
 * given, not only the one that wins, since any of them may be echoed).
 */
export function configuredSecrets(
  flags: { apiKey?: string | undefined; webhookSecret?: string | undefined },
  env: Record<string, string | undefined> = {},
): string[] {
  const given = [
    flags.apiKey,
    flags.webhookSecret,
    env[ENVIRONMENT_VARIABLES.apiKey],
    env[ENVIRONMENT_VARIABLES.webhookSecret],
  ];
  return given.flatMap((value) => (value ? [value.trim(), ...value.split(",").map((s) => s.trim())] : []));
}

/** Builds the printer for one run. */
export function createOutput(io: CliIo, options: OutputOptions): Output {
  const cleanError = redactorFor(options.secrets ?? []);
  const cleanResult = redactorFor(options.secrets ?? [], { patterns: false });
  // JSON is redacted value by value (after a round trip that keeps what JSON.stringify would print),
  // so that the output stays valid JSON whatever the secret's characters.
  const json = (value: unknown, clean: typeof cleanError, indent?: number) =>
    JSON.stringify(redactValue(JSON.parse(JSON.stringify(value) ?? "null"), clean), null, indent);
  return {
    json: options.json,
    result(value, human) {
      if (options.json) io.stdout.write(`${json(value, cleanResult, 2)}\n`);
      else io.stdout.write(`${cleanResult(human().join("\n"))}\n`);
    },
    note(text) {
      io.stderr.write(`${cleanResult(text)}\n`);
    },
    failure(error) {
      const exitCode = exitCodeOf(error);
      const described = describeError(error);
      if (options.json) {
        io.stderr.write(`${json({ error: { ...described, exitCode } }, cleanError)}\n`);
      } else {
        const colors = colorsFor(io.stderr, io.env ?? process.env);
        io.stderr.write(
          `${colors.red(colors.bold("promo-review:"))}${cleanError(humanError(described, exitCode).slice(13))}\n`,
        );
      }
      if (options.debug && error instanceof Error && error.stack)
        io.stderr.write(`${cleanError(error.stack)}\n`);
      return exitCode;
    },
  };
}

/** The parts of a failure a person or a script acts on. */
export interface DescribedError {
  message: string;
  code?: string;
  status?: number;
  fields: { field: string; message: string }[];
  limits: { constraint: string; limit: number; actual: number }[];
  correlationId?: string;
  retryAfterMs?: number;
}

/** Takes a failure apart into the fields {@link DescribedError} names. */
export function describeError(error: unknown): DescribedError {
  if (error instanceof UsageError) {
    return { message: error.message, code: "USAGE", fields: error.problems, limits: [] };
  }
  if (isPromoReviewError(error)) {
    // The SDK's message appends the code, fields and correlation id; they get lines of their own here.
    const lead = /^(.*?) \[[A-Za-z0-9_]+(?:, HTTP \d+)?\]/s.exec(error.message)?.[1] ?? error.message;
    return {
      message: lead,
      code: error.code,
      status: error.status,
      fields: error.fieldErrors.map(({ field, message }) => ({ field, message })),
      limits: error.constraintViolations.map(({ constraint, limit, actual }) => ({
        constraint,
        limit,
        actual,
      })),
      correlationId: error.correlationId || undefined,
      retryAfterMs: error.retryAfterMs,
    };
  }
  return { message: error instanceof Error ? error.message : String(error), fields: [], limits: [] };
}

const HINTS: Record<number, string> = {
  [EXIT.usage]: "Nothing was sent. Fix the command line (add --help for usage and an example).",
  [EXIT.network]: "The service could not be reached; check the URL and the network, then try again.",
  [EXIT.unexpected]: "This looks like a bug: run again with --debug and report the stack trace.",
};

function humanError(error: DescribedError, exitCode: number): string {
  const lines = [`promo-review: ${error.message}`];
  if (error.code)
    lines.push(`  code:           ${error.code}${error.status ? ` (HTTP ${error.status})` : ""}`);
  for (const f of error.fields) lines.push(`  field:          ${f.field}: ${f.message}`);
  for (const c of error.limits)
    lines.push(`  limit:          ${c.constraint} ${c.limit}, actual ${c.actual}`);
  if (error.retryAfterMs !== undefined)
    lines.push(`  retry after:    ${(error.retryAfterMs / 1000).toFixed(1)} s`);
  if (error.correlationId) lines.push(`  correlation id: ${error.correlationId} (quote it to support)`);
  const hint = HINTS[exitCode];
  if (hint) lines.push(hint);
  return lines.join("\n");
}

/** Lays rows out in aligned columns, for lists such as channels. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

/** `key: value` lines, skipping empty values, for one object's fields. */
export function fields(entries: [string, unknown][]): string[] {
  const shown = entries.filter(([, value]) => value !== undefined && value !== null && value !== "");
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${`${key}:`.padEnd(width + 2)}${text(value)}`);
}

function text(value: unknown): string {
  if (Array.isArray(value)) return value.map(text).join(", ");
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  return String(value);
}
