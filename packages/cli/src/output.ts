/**
 * How results and errors are printed: human text by default, one JSON document with `--json` (so
 * scripts can parse stdout), and errors that show the code, the field and the correlation id without a
 * stack trace unless `--debug` asks for one.
 */
import { isPromoReviewError } from "@promo-review/sdk";
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

/** Builds the printer for one run. */
export function createOutput(io: CliIo, options: { json: boolean; debug: boolean }): Output {
  return {
    json: options.json,
    result(value, human) {
      if (options.json) io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else io.stdout.write(`${human().join("\n")}\n`);
    },
    note(text) {
      io.stderr.write(`${text}\n`);
    },
    failure(error) {
      const exitCode = exitCodeOf(error);
      const described = describeError(error);
      if (options.json) {
        io.stderr.write(`${JSON.stringify({ error: { ...described, exitCode } })}\n`);
      } else {
        const colors = colorsFor(io.stderr, io.env ?? process.env);
        io.stderr.write(
          `${colors.red(colors.bold("promo-review:"))}${humanError(described, exitCode).slice(13)}\n`,
        );
      }
      if (options.debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
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
      ...(error.status !== undefined ? { status: error.status } : {}),
      fields: error.fieldErrors.map(({ field, message }) => ({ field, message })),
      limits: error.constraintViolations.map(({ constraint, limit, actual }) => ({
        constraint,
        limit,
        actual,
      })),
      ...(error.correlationId ? { correlationId: error.correlationId } : {}),
      ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
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
