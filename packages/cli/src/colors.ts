/**
 * Colour for people, never for pipes. picocolors does the formatting (tiny, maintained, and the one
 * colour library that lets each stream decide for itself through `createColors(enabled)`, where
 * yoctocolors decides once per process from the terminal type alone and would colour a pipe);
 * whether a stream gets colour follows the conventions people set in their shell.
 */
import picocolors from "picocolors";
import type { CliStream } from "./io.js";

/** The formatters of one stream: each returns its input unchanged when colour is off. */
export type Colors = ReturnType<typeof picocolors.createColors>;

/**
 * Whether `stream` gets colour: never with `NO_COLOR` set (no-color.org), always with `FORCE_COLOR`
 * set to anything but `0` or `false`, else only on a terminal whose `TERM` is not `dumb`.
 */
export function colorEnabled(stream: CliStream, env: Record<string, string | undefined>): boolean {
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  const force = env["FORCE_COLOR"];
  if (force !== undefined) return force !== "0" && force !== "false";
  return Boolean(stream.isTTY) && env["TERM"] !== "dumb";
}

/** The colours for `stream` under `env`. */
export function colorsFor(stream: CliStream, env: Record<string, string | undefined>): Colors {
  return picocolors.createColors(colorEnabled(stream, env));
}
