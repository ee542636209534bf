/**
 * `promo-review webhooks listen`: a receiver that verifies every delivery (signature, timestamp,
 * replay) and prints it. It needs only the webhook secret, so it uses `@promo-review/webhook-verify`
 * directly (the package for receiving webhooks) rather than a full client with an API key.
 */

import { ENVIRONMENT_VARIABLES } from "@promo-review/sdk";
import {
  createWebhookVerifier,
  isEvaluationCompleted,
  type WebhookEvent,
} from "@promo-review/webhook-verify";
import type { Command } from "commander";
import { contextOf, example, integerIn } from "../context.js";
import { type CliIo, untilAborted } from "../io.js";
import { UsageError } from "../usage-error.js";
import { startWebhookListener } from "../webhook-listener.js";

interface ListenOptions {
  port: number;
  host: string;
  count?: number;
}

function describeEvent(id: string, event: WebhookEvent): string {
  if (!isEvaluationCompleted(event)) return `${id} ${event.type}`;
  const data = event.data;
  const lines = [
    `${id} evaluation-completed: promotion ${data.promotionId} version ${data.versionId}, ${data.status}, ${data.issues.length} issues`,
    ...data.issues.map((issue) => `  - ${issue.severity} ${issue.category}: ${issue.message}`),
  ];
  return lines.join("\n");
}

/** Adds `webhooks` and its `listen` subcommand. */
export function registerWebhooks(program: Command, io: CliIo): void {
  const webhooks = program
    .command("webhooks")
    .description("Receive the service's signed webhooks.")
    .addHelpText("after", example("$ promo-review webhooks listen --port 8787 --webhook-secret whsec_..."));
  webhooks
    .command("listen")
    .description(
      "Listen for webhook deliveries, verify each (signature, timestamp, replay) and print it; runs until stopped (Ctrl-C) or --count deliveries. Refused deliveries are reported on stderr.",
    )
    .option("--port <port>", "port to listen on (0: a free one, printed)", integerIn(0, 65535), 8787)
    .option("--host <host>", "address to bind (0.0.0.0 to accept from other machines)", "127.0.0.1")
    .option("--count <n>", "stop after this many verified deliveries", integerIn(1, 1_000_000))
    .addHelpText(
      "after",
      example(
        "$ PROMO_REVIEW_WEBHOOK_SECRET=whsec_... promo-review webhooks listen --port 8787",
        "$ promo-review webhooks listen --port 0 --webhook-secret whsec_... --count 1 --json",
      ),
    )
    .action(async (options: ListenOptions, command: Command) => {
      const ctx = contextOf(command, io);
      const secret = ctx.globals.webhookSecret ?? ctx.env[ENVIRONMENT_VARIABLES.webhookSecret]?.trim();
      if (!secret) {
        throw new UsageError("Deliveries cannot be verified without the endpoint's secret", [
          { field: "--webhook-secret", message: "is required: pass it or set PROMO_REVIEW_WEBHOOK_SECRET" },
        ]);
      }
      const verifier = createWebhookVerifier({
        webhookSecret: secret.includes(",") ? secret.split(",").map((s) => s.trim()) : secret,
      });
      const done = new AbortController();
      let received = 0;
      const listener = await startWebhookListener(
        verifier.nodeHandler(
          (event, delivery) => {
            received++;
            if (ctx.out.json) {
              ctx.io.stdout.write(
                `${JSON.stringify({ webhookId: delivery.id, timestamp: delivery.timestamp, event })}\n`,
              );
            } else {
              ctx.io.stdout.write(`${describeEvent(delivery.id, event)}\n`);
            }
            if (options.count !== undefined && received >= options.count) done.abort();
          },
          {
            // Problems go to stderr (stdout is the deliveries), as JSON lines under --json.
            onRefused: (error) =>
              ctx.io.stderr.write(
                ctx.out.json
                  ? `${JSON.stringify({ refused: { reason: error.reason, code: error.code, message: error.message } })}\n`
                  : `refused a delivery (${error.reason}): ${error.message}\n`,
              ),
            onError: (error) =>
              ctx.io.stderr.write(
                ctx.out.json
                  ? `${JSON.stringify({ failed: { message: error instanceof Error ? error.message : String(error) } })}\n`
                  : `failed to handle a delivery: ${String(error)}\n`,
              ),
          },
        ),
        { host: options.host, port: options.port },
      );
      try {
        ctx.out.note(`Listening for webhooks on ${listener.url} (any path); stop with Ctrl-C`);
        await Promise.race([untilAborted(io.signal), untilAborted(done.signal)]);
      } finally {
        await listener.close();
      }
    });
}
