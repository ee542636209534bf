#!/usr/bin/env node
/**
 * Entry point of the `promo-review` command: wires `run` to the process (argv, streams, environment,
 * SIGINT/SIGTERM) and sets the exit code. Everything else is in cli.ts, which the tests drive.
 */
import { run } from "./cli.js";

const stop = new AbortController();
const onSignal = () => {
  // A second Ctrl-C while stopping leaves at once.
  if (stop.signal.aborted) process.exit(130);
  stop.abort(new Error("stopped by a signal"));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: stop.signal,
}).then((code) => {
  process.exitCode = code;
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
});
