/** `promo-review demo`: the whole workflow (see ../demo.ts), with its summary. */
import type { Command } from "commander";
import { contextOf, example, integerIn } from "../context.js";
import { demoSummaryLines, runDemo } from "../demo.js";
import type { CliIo } from "../io.js";

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
            ...(options.webhookPort !== undefined ? { webhookPort: options.webhookPort } : {}),
            webhookHost: options.webhookHost,
            link: options.link,
            timeoutMs: options.timeout * 1000,
            ...(options.profile !== undefined ? { profile: options.profile } : {}),
          },
          io,
          ctx.out,
        );
        ctx.out.result(summary, () => demoSummaryLines(summary));
      },
    );
}
