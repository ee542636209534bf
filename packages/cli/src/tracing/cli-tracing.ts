/**
 * Tracing for one run of the command, from the standard `OTEL_*` variables: nothing is imported unless
 * they ask for telemetry; then the user's `@opentelemetry/sdk-node` is started, the run becomes one
 * span (`promo-review <command>`, parent of every SDK operation), and the SDK is flushed before the
 * process exits, within {@link FLUSH_DEADLINE_MS}. Not installed: a one-line notice, and the command
 * runs untraced.
 */
import type { Observer } from "@promo-review/errors/observe";
import { type MeterProviderLike, openTelemetry, type TracerProviderLike } from "@promo-review/opentelemetry";
import { findOtelSdk, OTEL_SDK_INSTALL, OTEL_SDK_PACKAGE, sdkSearchRoots } from "./find-sdk.js";
import { otelRequest } from "./otel-env.js";
import { type StartedSdk, startOtelSdk } from "./start-sdk.js";

/** How long the exporters get to send what the run recorded, once it has ended. */
export const FLUSH_DEADLINE_MS = 3_000;

/** The instrumentation scope of the command's own span. */
export const CLI_SCOPE = "@promo-review/cli";

/** One run's tracing. */
export interface CliTracing {
  /** The providers the user's OpenTelemetry SDK gave (those it exports to): empty when tracing is off. */
  providers: { tracerProvider?: TracerProviderLike; meterProvider?: MeterProviderLike };
  /** The observer for the command's clients, `openTelemetry(...)` over `providers`: none when tracing is off. */
  telemetry: Observer | undefined;
  /** Runs the command (`work`) inside its span, when tracing is on. */
  around(work: () => Promise<number>): Promise<number>;
  /** Flushes and stops the SDK; `false` when that missed the deadline (the caller then exits anyway). */
  shutdown(): Promise<boolean>;
}

/** What starting needs: the process's environment, working directory and stderr, and the run's words. */
export interface TracingStart {
  env: Record<string, string | undefined>;
  cwd: string;
  stderr: { write(text: string): unknown };
  argv: readonly string[];
  /** The program's command names, to name the span (an argument is never put in it). */
  commands: readonly string[];
  version: string;
}

/** The global options that take a value: the word after one is that value, not a command. */
const VALUE_OPTIONS = new Set([
  "--api-key",
  "--base-url",
  "--files-url",
  "--user-id",
  "--user-email",
  "--webhook-secret",
  "--env-file",
]);

/** The command `argv` runs, among `commands`; `undefined` for none (help, `--version`). */
export function commandOf(argv: readonly string[], commands: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === "--") return undefined;
    if (VALUE_OPTIONS.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith("-")) continue;
    return commands.includes(word) ? word : undefined;
  }
  return undefined;
}

const OFF: CliTracing = {
  providers: {},
  telemetry: undefined,
  around: (work) => work(),
  shutdown: async () => true,
};

/** Starts tracing for the run when the `OTEL_*` variables ask for it and the SDK can be found. */
export async function startTracing(start: TracingStart): Promise<CliTracing> {
  const request = otelRequest(start.env);
  if (!request.asked) return OFF;
  const found = findOtelSdk(sdkSearchRoots(start));
  if (!found) {
    start.stderr.write(
      `promo-review: tracing is off: OTEL_* variables ask for it, but ${OTEL_SDK_PACKAGE} is not installed (run \`${OTEL_SDK_INSTALL}\` in this project, or install it globally beside promo-review)\n`,
    );
    return OFF;
  }
  let sdk: StartedSdk;
  try {
    sdk = await startOtelSdk(found, request, start.env);
  } catch (error) {
    // A broken or incompatible install must not stop the command.
    const reason = error instanceof Error ? error.message : String(error);
    start.stderr.write(
      `promo-review: tracing is off: ${OTEL_SDK_PACKAGE} ${found.version} could not be started (${reason.split("\n")[0]})\n`,
    );
    return OFF;
  }
  const command = commandOf(start.argv, start.commands);
  const providers = {
    ...(sdk.tracerProvider ? { tracerProvider: sdk.tracerProvider } : {}),
    ...(sdk.meterProvider ? { meterProvider: sdk.meterProvider } : {}),
  };
  return {
    providers,
    telemetry: openTelemetry(providers),
    around(work) {
      if (!sdk.tracerProvider) return work();
      const tracer = sdk.api.trace.getTracer(CLI_SCOPE, start.version);
      // INTERNAL (0). Only the command's name, from the program's own list, goes in: never an argument.
      const attributes: Record<string, string> = command ? { "promo_review.cli.command": command } : {};
      return tracer.startActiveSpan(
        command ? `promo-review ${command}` : "promo-review",
        { kind: 0, attributes },
        async (span) => {
          try {
            const code = await work();
            span.setAttribute("promo_review.cli.exit_code", code);
            // ERROR (2) for any failure exit; 130 (stopped by a signal) is one too.
            if (code !== 0) span.setStatus({ code: 2 });
            return code;
          } finally {
            span.end();
          }
        },
      );
    },
    shutdown: () => sdk.shutdown(FLUSH_DEADLINE_MS),
  };
}
