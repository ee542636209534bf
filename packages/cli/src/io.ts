/**
 * What the command needs from its process. `run(argv, io)` takes it as an argument, so tests drive the
 * whole command in-process with captured output, their own environment and their own stop signal.
 */

import type { Observer } from "@promo-review/errors/observe";

/** Where text goes: `process.stdout`/`process.stderr`, or a capture in tests. */
export interface CliStream {
  write(text: string): unknown;
  /** True on a terminal: progress bars are drawn only there. */
  isTTY?: boolean;
  /** The terminal's width, when known. */
  columns?: number;
  /**
   * Cursor control, as a terminal's `tty.WriteStream` has it (`process.stderr` on a terminal): a
   * spinner redraws its line with these, and is drawn only on a stream that has them.
   */
  cursorTo?(x: number): unknown;
  moveCursor?(dx: number, dy: number): unknown;
  clearLine?(dir: -1 | 0 | 1): unknown;
}

/**
 * The process around one run of the command. `telemetry` (an observer, optional) goes to every client
 * the command makes; the bin passes `openTelemetry(...)` over the providers of the user's
 * `@opentelemetry/sdk-node` when the `OTEL_*` variables ask for tracing.
 */
export interface CliIo {
  /** What observes every client the command makes; none by default, and then no observation code runs. */
  telemetry?: Observer | undefined;
  /** Results: human text, or JSON with `--json`. */
  stdout: CliStream;
  /** Errors, progress bars and, with `--json`, notes. */
  stderr: CliStream;
  /** Where `PROMO_REVIEW_*` settings are read (default: `process.env`). */
  env?: Record<string, string | undefined>;
  /** Where `.env` is looked for (default: `process.cwd()`). */
  cwd?: string;
  /** The local clock, in ms since the epoch (default: `Date.now`); `doctor` compares it with the service's. */
  now?: () => number;
  /**
   * Aborted when the command must stop (the bin wires SIGINT and SIGTERM to it). Servers such as
   * `webhooks listen` and `simulator` run until it aborts; operations in flight are cancelled.
   */
  signal?: AbortSignal;
}

/**
 * The io's observer, for a client's options: no `telemetry` key at all without one, so that a client
 * with none runs no observation code.
 */
export function telemetryOf(io: Pick<CliIo, "telemetry">): { telemetry?: Observer } {
  return io.telemetry ? { telemetry: io.telemetry } : {};
}

/** Resolves once `signal` aborts (never, without one). */
export function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
