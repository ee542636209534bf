/**
 * The `promo-review` program (commander): global options, one subcommand per operation, and the
 * mapping of every outcome to an exit code. `run(argv, io)` is the whole command; the bin only wires
 * it to the process, so tests run it in-process with captured output.
 */
import { Command, CommanderError } from "commander";
import { registerBatch } from "./commands/batch.js";
import { registerCapture } from "./commands/capture.js";
import { registerCompletion } from "./commands/completion.js";
import { registerCreate, registerVersion } from "./commands/create.js";
import { registerDemo } from "./commands/demo.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerEvaluate } from "./commands/evaluate.js";
import { registerPromotionReads } from "./commands/promotion.js";
import { registerReference } from "./commands/reference.js";
import { registerSimulator } from "./commands/simulator.js";
import { registerUpload } from "./commands/upload.js";
import { registerWebhooks } from "./commands/webhooks.js";
import { example } from "./context.js";
import { EXIT, ReportedExit } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { configuredSecrets, createOutput } from "./output.js";
import type { GlobalOptions } from "./settings.js";
import { UsageError } from "./usage-error.js";

/** The version printed by `--version`. */
export const VERSION = "0.2.1";

const SETTINGS_HELP = `
Settings come from the flags above, else PROMO_REVIEW_API_KEY, PROMO_REVIEW_BASE_URL,
PROMO_REVIEW_FILES_URL, PROMO_REVIEW_USER_ID, PROMO_REVIEW_USER_EMAIL and PROMO_REVIEW_WEBHOOK_SECRET,
else the same names in --env-file (default: .env in this directory). \`promo-review doctor\` shows which.
Exit codes: 0 done, 1 unexpected (a bug; add --debug), 2 usage (nothing was sent), 3 the service
answered with an error, 4 the service could not be reached, 130 stopped by a signal.`;

/**
 * Whether a run asked for JSON. Read from argv before commander parses it, because commander's own
 * failures (an unknown command or flag) happen before any option is known and must be JSON too.
 */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/** Commander's message for a failure, without its `error: ` prefix and trailing help hint. */
function commanderMessage(text: string): string {
  return text.replace(/^error: /, "").trim();
}

/**
 * Builds the program for one run (commander keeps state per parse, so each run gets a fresh one).
 * With `json`, commander's failures are kept (in `failures`) for `run` to print as JSON.
 */
export function buildProgram(io: CliIo, options: { json?: boolean; failures?: string[] } = {}): Command {
  const json = options.json ?? false;
  const program = new Command("promo-review")
    .description(
      "Submit promotions for compliance review: the whole workflow as a demo, one subcommand per operation, a webhook listener and a local simulator.",
    )
    .version(VERSION)
    // Inherited by every subcommand made after this point: errors come back to run(), output to io.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // Under --json, commander's messages (and the help it shows after an error) are not text on
      // stderr: run() prints the failure as JSON instead.
      writeErr: (text) => (json ? undefined : io.stderr.write(text)),
      outputError: (text, write) => (json ? options.failures?.push(commanderMessage(text)) : write(text)),
      getOutHelpWidth: () => io.stdout.columns ?? 100,
      getErrHelpWidth: () => io.stderr.columns ?? 100,
    })
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError("(add --help for usage and an example)")
    .option("--api-key <key>", "API key (PROMO_REVIEW_API_KEY)")
    .option("--base-url <url>", "main API base URL (PROMO_REVIEW_BASE_URL)")
    .option("--files-url <url>", "file service base URL (PROMO_REVIEW_FILES_URL)")
    .option("--user-id <id>", "external user id acted for (PROMO_REVIEW_USER_ID)")
    .option("--user-email <email>", "external user email, for act-on-behalf keys (PROMO_REVIEW_USER_EMAIL)")
    .option("--webhook-secret <secret>", "webhook signing secret, whsec_... (PROMO_REVIEW_WEBHOOK_SECRET)")
    .option("--env-file <path>", "read PROMO_REVIEW_* settings from this file (default: ./.env when present)")
    .option("--json", "print results as JSON (errors as JSON on stderr)")
    .option("--debug", "print stack traces of failures")
    .addHelpText(
      "after",
      `${example("$ promo-review demo", "$ promo-review channels --json")}${SETTINGS_HELP}`,
    );

  registerDemo(program, io);
  registerUpload(program, io);
  registerCapture(program, io);
  registerCreate(program, io);
  registerPromotionReads(program, io);
  registerVersion(program, io);
  registerEvaluate(program, io);
  registerBatch(program, io);
  registerReference(program, io);
  registerWebhooks(program, io);
  registerSimulator(program, io);
  registerDoctor(program, io);
  registerCompletion(program, io);
  return program;
}

/**
 * Runs `promo-review` with `argv` (the arguments after the program name) and resolves with the exit
 * code; it never throws and never exits the process. Help and `--version` are 0; see `EXIT` for the rest.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const json = wantsJson(argv);
  const failures: string[] = [];
  const program = buildProgram(io, { json, failures });
  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok;
      // Without --json commander has printed its message and the help hint; with it, the same
      // failure becomes the JSON every other failure is.
      if (json) {
        const message = failures[0] ?? commanderMessage(error.message);
        const usage = new UsageError(message, [{ field: error.code, message }]);
        return createOutput(io, { json: true, debug: false }).failure(usage);
      }
      return EXIT.usage;
    }
    // doctor printed its own report; only its exit code is left.
    if (error instanceof ReportedExit) return error.exitCode;
    const globals = program.opts<GlobalOptions>();
    return createOutput(io, {
      json: json || Boolean(globals.json),
      debug: Boolean(globals.debug),
      secrets: configuredSecrets(globals, io.env ?? process.env),
    }).failure(error);
  }
}
