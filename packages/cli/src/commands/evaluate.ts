/**
 * `promo-review evaluate <promotionId> [versionId] [--wait]`: start a compliance evaluation and,
 * with `--wait`, wait for its result: by webhook on `--webhook-port` (the service must be configured
 * to deliver there), else by polling, which spends the shared budget.
 */
import type { EvaluationOutcome } from "@promo-review/sdk";
import type { Command } from "commander";
import { type CommandContext, contextOf, example, integerIn } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";
import { hasSetting } from "../settings.js";
import { drawsOn, waitSpinner } from "../spinner.js";
import { UsageError } from "../usage-error.js";
import { startWebhookListener } from "../webhook-listener.js";

interface EvaluateOptions {
  wait?: boolean;
  webhookPort?: number;
  webhookHost: string;
  timeout: number;
  pollAfter?: number;
}

function outcomeLines(outcome: EvaluationOutcome): string[] {
  return [
    ...fields([
      ["evaluation", outcome.evaluationId],
      ["version", outcome.versionId],
      ["status", outcome.status],
      ["received", outcome.via === "webhook" ? "by a verified webhook" : "by polling"],
      ["issues", outcome.issues.length],
    ]),
    ...outcome.issues.map((issue) => `  - ${issue.severity} ${issue.category}: ${issue.message}`),
  ];
}

/** Starts the evaluation and prints its id, without waiting for the result. */
async function startEvaluation(ctx: CommandContext, promotionId: string, versionId: string | undefined) {
  const client = ctx.client();
  const version = versionId ?? (await client.promotions.get(promotionId, ctx.signal)).latestVersionId;
  const started = await client.promotions.evaluate(promotionId, version, ctx.signal);
  ctx.out.result({ ...started, promotionId, versionId: version }, () =>
    fields([
      ["evaluation", started.evaluationId],
      ["version", version],
      ["status", started.status],
      ["correlation id", started.correlationId],
    ]),
  );
}

/**
 * Evaluates and waits for the result: by a verified webhook on `--webhook-port` when one is given
 * (polling after `--poll-after`), else by polling at once.
 */
async function evaluateAndWait(
  ctx: CommandContext,
  promotionId: string,
  versionId: string | undefined,
  options: EvaluateOptions,
) {
  const client = ctx.client();
  if (options.webhookPort !== undefined && !hasSetting("webhookSecret", ctx.globals, ctx.env)) {
    throw new UsageError("Webhooks cannot be verified without the endpoint's secret", [
      {
        field: "--webhook-secret",
        message: "is required with --webhook-port: pass it or set PROMO_REVIEW_WEBHOOK_SECRET",
      },
    ]);
  }
  const spinner = waitSpinner(ctx.io.stderr, drawsOn(ctx.io.stderr, ctx.out.json));
  const listener =
    options.webhookPort !== undefined
      ? await startWebhookListener(client.webhooks.nodeHandler(), {
          host: options.webhookHost,
          port: options.webhookPort,
        })
      : undefined;
  try {
    if (listener) ctx.out.note(`Waiting for the evaluation-completed webhook on ${listener.url}`);
    spinner.status(
      listener
        ? `evaluating promotion ${promotionId}: waiting for the webhook on ${listener.url}`
        : `evaluating promotion ${promotionId}: polling for the result`,
    );
    const outcome = await client.flows.evaluateAndWait(promotionId, {
      versionId: versionId || undefined,
      timeoutMs: options.timeout * 1000,
      // Without a listener nothing can arrive by webhook: poll at once.
      ...(listener
        ? options.pollAfter !== undefined
          ? { pollAfterMs: options.pollAfter * 1000 }
          : {}
        : { pollAfterMs: 0 }),
      ...ctx.signal,
    });
    ctx.out.result(outcome, () => outcomeLines(outcome));
  } finally {
    spinner.stop();
    await listener?.close();
  }
}

/** Adds `evaluate`. */
export function registerEvaluate(program: Command, io: CliIo): void {
  program
    .command("evaluate")
    .description("Start a compliance evaluation of a version (the latest when no version id is given).")
    .argument("<promotionId>", "the promotion")
    .argument("[versionId]", "the version (default: the latest)")
    .option("--wait", "wait for the result and print the issues found")
    .option(
      "--webhook-port <port>",
      "with --wait: receive the result by webhook on this port (the service must deliver there)",
      integerIn(0, 65535),
    )
    .option("--webhook-host <host>", "address the webhook listener binds", "127.0.0.1")
    .option("--timeout <seconds>", "with --wait: longest wait", integerIn(1, 86_400), 600)
    .option(
      "--poll-after <seconds>",
      "with --wait and a webhook port: poll after this long without a webhook (default 60)",
      integerIn(0, 86_400),
    )
    .addHelpText(
      "after",
      example(
        "$ promo-review evaluate 0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b",
        "$ promo-review evaluate 0b6e... --wait --webhook-port 8787 --webhook-secret whsec_...",
      ),
    )
    .action(
      (promotionId: string, versionId: string | undefined, options: EvaluateOptions, command: Command) => {
        const ctx = contextOf(command, io);
        return options.wait
          ? evaluateAndWait(ctx, promotionId, versionId, options)
          : startEvaluation(ctx, promotionId, versionId);
      },
    );
}
