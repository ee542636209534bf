/**
 * `promo-review demo`: the whole workflow, step by step, against the embedded simulator (the default)
 * or a real deployment (when `PROMO_REVIEW_*` settings or their flags are given). The steps are a table
 * (`demo-steps.ts`) run in order here; what they add up to is `demo-summary.ts`.
 */
import type { Command } from "commander";
import { colorsFor } from "../colors.js";
import { contextOf, example, integerIn } from "../context.js";
import type { CliIo } from "../io.js";
import type { Output } from "../output.js";
import { hasSetting } from "../settings.js";
import { DEMO_STEPS, type DemoOptions, type DemoRun, runStep } from "./demo-steps.js";
import { type DemoSummary, demoSummaryLines, summaryOf } from "./demo-summary.js";

export type { DemoOptions, DemoStep } from "./demo-steps.js";
export type { DemoSummary } from "./demo-summary.js";

/** A run's settings, before any step. */
function startRun(options: DemoOptions, io: CliIo, out: Output): DemoRun {
  const env = options.env ?? io.env ?? process.env;
  return {
    options,
    io,
    out,
    env,
    call: io.signal ? { signal: io.signal } : {},
    // A deployment is chosen by its URL: a key alone points nowhere (a stray PROMO_REVIEW_API_KEY in a
    // shell is common), so without a base URL the demo runs its own simulator and says why.
    embedded: !hasSetting("baseUrl", options.globals, env),
    // Under --json stderr is read by programs too: plain notes.
    colors: colorsFor(io.stderr, out.json ? { NO_COLOR: "1" } : (io.env ?? process.env)),
    steps: [],
    got: {},
    verified: [],
    cleanup: [],
  };
}

/** Says where the demo runs, and why when a stray key is ignored. */
function announce(run: DemoRun): void {
  run.out.note(
    run.embedded
      ? "promo-review demo: the whole workflow against the simulator, started in this process"
      : "promo-review demo: the whole workflow against the service in your PROMO_REVIEW_* settings",
  );
  if (run.embedded && hasSetting("apiKey", run.options.globals, run.env)) {
    run.out.note(
      "  (an API key is set but no base URL: the demo ignores the key and uses its own simulator; set --base-url or PROMO_REVIEW_BASE_URL to run it against a deployment)",
    );
  }
}

/** Runs the demo; each step is reported as it ends. Everything started is stopped before returning. */
export async function runDemo(options: DemoOptions, io: CliIo, out: Output): Promise<DemoSummary> {
  const run = startRun(options, io, out);
  try {
    announce(run);
    for (const row of DEMO_STEPS) await runStep(run, row);
    return summaryOf(run);
  } finally {
    for (const stop of run.cleanup.reverse()) await stop();
  }
}

/** Adds `demo`. */
export function registerDemo(program: Command, io: CliIo): void {
  program
    .command("demo")
    .description(
      "Run the whole workflow: upload a sample PDF, capture a link, create a promotion, add versions, submit, read the decision, evaluate and receive the signed webhook. Starts a simulator in this process unless a base URL (--base-url or PROMO_REVIEW_BASE_URL) points at a deployment.",
    )
    .option(
      "--webhook-port <port>",
      "port for the webhook listener (a deployment must deliver there)",
      integerIn(0, 65535),
    )
    .option("--webhook-host <host>", "address the webhook listener binds", "127.0.0.1")
    .option("--link <url>", "the link to capture", "https://example.com/offers/spring-savings")
    .option("--timeout <seconds>", "longest wait for the evaluation's result", integerIn(1, 3600), 120)
    .option(
      "--profile <seed>",
      "the embedded simulator's variant profile: another plausible reading of each point the service's interface leaves open (0, the default, is the simulator's own)",
      integerIn(0, 2 ** 31 - 1),
    )
    .addHelpText(
      "after",
      example(
        "$ promo-review demo",
        "$ promo-review demo --profile 3",
        "$ PROMO_REVIEW_API_KEY=... PROMO_REVIEW_BASE_URL=https://api.example PROMO_REVIEW_FILES_URL=https://files.example \\",
        "  PROMO_REVIEW_USER_ID=me PROMO_REVIEW_WEBHOOK_SECRET=whsec_... promo-review demo --webhook-port 8787 --webhook-host 0.0.0.0",
      ),
    )
    .action(
      async (
        options: {
          webhookPort?: number;
          webhookHost: string;
          link: string;
          timeout: number;
          profile?: number;
        },
        command: Command,
      ) => {
        const ctx = contextOf(command, io);
        const summary = await runDemo(
          {
            globals: ctx.globals,
            env: ctx.env,
            webhookPort: options.webhookPort,
            webhookHost: options.webhookHost,
            link: options.link,
            timeoutMs: options.timeout * 1000,
            profile: options.profile,
          },
          io,
          ctx.out,
        );
        ctx.out.result(summary, () => demoSummaryLines(summary));
      },
    );
}
