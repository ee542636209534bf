/**
 * Reading and moving a promotion along: `get <promotionId>`, `submit <promotionId> [versionId]` and
 * `decision <promotionId> [versionId]`. Without a version id, the latest is read from the promotion
 * (it may have been made in the web application).
 */
import type { Command } from "commander";
import { contextOf, example } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";

/** Adds `get`, `submit` and `decision`. */
export function registerPromotionReads(program: Command, io: CliIo): void {
  registerGet(program, io);
  registerSubmit(program, io);
  registerDecision(program, io);
}

/** `get <promotionId>`. */
function registerGet(program: Command, io: CliIo): void {
  program
    .command("get")
    .description("Read a promotion: its latest version (wherever it was made), status and version count.")
    .argument("<promotionId>", "the promotion")
    .addHelpText("after", example("$ promo-review get 0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b --json"))
    .action(async (promotionId: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command, io);
      const promotion = await ctx.client().promotions.get(promotionId, ctx.signal);
      ctx.out.result(promotion, () =>
        fields([
          ["promotion", promotion.promotionId],
          ["status", promotion.status],
          ["latest version", `${promotion.latestVersion} (${promotion.latestVersionId})`],
          ["versions", promotion.versionCount],
          ["correlation id", promotion.correlationId],
        ]),
      );
    });
}

/** `submit <promotionId> [versionId]`. */
function registerSubmit(program: Command, io: CliIo): void {
  program
    .command("submit")
    .description("Submit a version for review (the latest when no version id is given).")
    .argument("<promotionId>", "the promotion")
    .argument("[versionId]", "the version (default: the latest)")
    .option("--reviewer <email>", "the reviewer, by email (applied on the first submit)")
    .option("--deadline <date>", "review deadline, YYYY-MM-DD or an ISO date-time")
    .addHelpText(
      "after",
      example(
        "$ promo-review submit 0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b",
        "$ promo-review submit 0b6e... 7c1d... --reviewer compliance@example.com --deadline 2026-05-01",
      ),
    )
    .action(
      async (
        promotionId: string,
        versionId: string | undefined,
        options: { reviewer?: string; deadline?: string },
        command: Command,
      ) => {
        const ctx = contextOf(command, io);
        const body = {
          // JSON.stringify leaves out what is undefined; an empty flag value is no value.
          reviewerEmail: options.reviewer || undefined,
          deadline: options.deadline || undefined,
        };
        const promotions = ctx.client().promotions;
        const submitted = versionId
          ? { ...(await promotions.submit(promotionId, versionId, body, ctx.signal)), versionId }
          : await promotions.submitLatest(promotionId, body, ctx.signal);
        ctx.out.result(submitted, () =>
          fields([
            ["promotion", promotionId],
            ["version", submitted.versionId],
            ["status", submitted.status],
            ["correlation id", submitted.correlationId],
          ]),
        );
      },
    );
}

/** `decision <promotionId> [versionId]`. */
function registerDecision(program: Command, io: CliIo): void {
  program
    .command("decision")
    .description("Read the review decision of a version (the latest when no version id is given).")
    .argument("<promotionId>", "the promotion")
    .argument("[versionId]", "the version (default: the latest)")
    .addHelpText("after", example("$ promo-review decision 0b6e2c1a-3f4d-4e5f-8a9b-0c1d2e3f4a5b"))
    .action(
      async (promotionId: string, versionId: string | undefined, _options: unknown, command: Command) => {
        const ctx = contextOf(command, io);
        const promotions = ctx.client().promotions;
        const decision = versionId
          ? { ...(await promotions.decision(promotionId, versionId, ctx.signal)), versionId }
          : await promotions.decisionOfLatest(promotionId, ctx.signal);
        ctx.out.result(decision, () =>
          fields([
            ["promotion", promotionId],
            ["version", decision.versionId],
            ["decision", decision.decision],
            ["decided by", decision.decidedByUserId],
            ["decided at", decision.decidedAt],
            ["rationale", decision.rationale],
            ["correlation id", decision.correlationId],
          ]),
        );
      },
    );
}
