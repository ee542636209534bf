#!/usr/bin/env node
/**
 * Entry point of the `promo-review` command: wires `run` to the process (argv, streams, environment,
 * SIGINT/SIGTERM), starts tracing when the `OTEL_*` variables ask for it (tracing/cli-tracing.ts) and
 * sets the exit code. Everything else is in cli.ts, which the tests drive.
 */
import { buildProgram, run, VERSION } from "./cli.js";
import { FLUSH_DEADLINE_MS, startTracing } from "./tracing/cli-tracing.js";

const stop = new AbortController();
const onSignal = () => {
  // A second Ctrl-C while stopping leaves at once.
  if (stop.signal.aborted) process.exit(130);
  stop.abort(new Error("stopped by a signal"));
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const argv = process.argv.slice(2);
const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: stop.signal };
const tracing = await startTracing({
  env: process.env,
  cwd: process.cwd(),
  stderr: process.stderr,
  argv,
  commands: buildProgram(io).commands.map((command) => command.name()),
  version: VERSION,
});
const code = await tracing.around(() => run(argv, { ...io, telemetry: tracing.telemetry }));
process.exitCode = code;
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
if (!(await tracing.shutdown())) {
  // An exporter that cannot reach its collector must not hold the command: leave without it.
  process.stderr.write(
    `promo-review: the OpenTelemetry SDK did not finish sending within ${FLUSH_DEADLINE_MS / 1000} s; exiting without it\n`,
  );
  process.exit(code);
}
