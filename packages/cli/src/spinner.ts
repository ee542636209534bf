/**
 * A spinner with the current status on stderr for every wait (an import being polled, an upload
 * being processed, an evaluation running), drawn by yocto-spinner (tiny, maintained, writes to the
 * stream it is given). Silent under `--json` and when stderr is not a terminal: a pipe or a log gets
 * no control characters, and stdout stays the result alone.
 */
import type { Writable } from "node:stream";
import yoctoSpinner from "yocto-spinner";
import type { CliStream } from "./io.js";

/** One wait's status line. */
export interface WaitSpinner {
  /** Shows `text` as the current status (starting the spinner on first use). */
  status(text: string): void;
  /** Removes the spinner's line. Safe to call twice, and when nothing was drawn. */
  stop(): void;
  /** Every status shown, in order (what a person saw; also what tests read when nothing is drawn). */
  readonly seen: readonly string[];
}

/** A spinner on `stream`, drawn only when `enabled` (a terminal, and no `--json`). */
export function waitSpinner(stream: CliStream, enabled: boolean): WaitSpinner {
  const seen: string[] = [];
  let spinner: ReturnType<typeof yoctoSpinner> | undefined;
  let stopped = false;
  return {
    seen,
    status(text) {
      if (stopped) return;
      if (seen[seen.length - 1] !== text) seen.push(text);
      if (!enabled) return;
      if (spinner) {
        spinner.text = text;
        return;
      }
      // The bin wires SIGINT to a graceful stop: the spinner must not exit the process itself.
      spinner = yoctoSpinner({ text, stream: stream as unknown as Writable, handleSignals: false }).start();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      spinner?.stop();
    },
  };
}

/** Whether waits are drawn on this run's stderr: a terminal (with cursor control), and no `--json`. */
export function drawsOn(stream: CliStream, json: boolean): boolean {
  const cursor = typeof stream.cursorTo === "function" && typeof stream.clearLine === "function";
  return Boolean(stream.isTTY) && cursor && !json;
}
