#!/usr/bin/env node
/**
 * Entry point of the `promo-review-simulator` command (argv and process wiring only; the logic is in
 * cli.ts, which the tests drive).
 */
import { runCli } from "./cli.js";

runCli(process.argv.slice(2), {
  write: (text) => process.stdout.write(text),
  onSignal: (signal, handler) => process.once(signal, handler),
}).then(
  ({ stopped }) => stopped,
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
