/**
 * The command's exit codes. Scripts branch on them, so each kind of failure has its own: a mistake in
 * how the command was called is not worth retrying, a service answer may be, a network failure
 * usually is.
 */
import { AbortError, isPromoReviewError, TransportError, ValidationError } from "@promo-review/sdk";
import { UsageError } from "./usage-error.js";

/** Every exit code `promo-review` uses. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** Something unexpected (a bug): run again with `--debug` and report the stack trace. */
  unexpected: 1,
  /** Usage: an unknown command or flag, a missing argument or setting, input refused before sending. */
  usage: 2,
  /** The service answered with an error (4xx, 5xx, or an answer the SDK could not use). */
  service: 3,
  /** The service could not be reached: connection refused or reset, DNS, timeout. */
  network: 4,
  /** Stopped by SIGINT or SIGTERM before the operation ended. */
  interrupted: 130,
} as const;

/** One of {@link EXIT}'s values. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code a failure deserves. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  // Refused locally: nothing was sent, the input (or the configuration) is what must change.
  if (error instanceof ValidationError && error.local) return EXIT.usage;
  if (error instanceof AbortError) return EXIT.interrupted;
  if (error instanceof TransportError) return EXIT.network;
  if (isPromoReviewError(error)) return EXIT.service;
  return EXIT.unexpected;
}

/**
 * A command that printed its own report and only has an exit code left to give (a batch with failed
 * items, a diagnosis that found a failure): `run` returns the code without printing anything more.
 * The one shape every such command throws.
 */
export class ReportedExit extends Error {
  constructor(readonly exitCode: ExitCode) {
    super(`exit code ${exitCode}`);
    this.name = "ReportedExit";
  }
}
