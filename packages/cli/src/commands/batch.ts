/**
 * `promo-review batch run <manifest>` and `promo-review batch report --journal <path>`: a manifest of
 * promotions checked whole, its plan printed, then run with a file journal (by default beside the
 * manifest), so the same command run again after a crash goes on where it stopped; the report prints
 * where every item of a journal stands.
 */

import type { BatchOutcome } from "@promo-review/sdk";
import {
  type BatchItem,
  describePlan,
  describeProblem,
  type ItemReport,
  type JournalState,
  planBatch,
  readState,
  reportOf,
} from "@promo-review/sdk/batch";
import { fileSource, manifestFile } from "@promo-review/sdk/node";
import type { Command } from "commander";
import { contentTypeOf } from "../content-types.js";
import { type CommandContext, contextOf, example, integerIn } from "../context.js";
import { EXIT, ReportedExit } from "../exit-codes.js";
import type { CliIo } from "../io.js";
import { openJournal } from "../journal-option.js";
import { UsageError } from "../usage-error.js";

interface RunOptions {
  journal?: string;
  concurrency?: number;
  retryAmbiguous?: boolean;
  skipInvalid?: boolean;
}

/** The columns of a report, in order. */
const COLUMNS = [
  "key",
  "status",
  "promotionId",
  "versionId",
  "submitStatus",
  "evaluationId",
  "error",
  "ambiguousStep",
  "retriedSteps",
] as const;

/** An outcome or report as one row of plain values (the error and the ambiguous step in words). */
function rowOf(item: BatchOutcome | ItemReport): Record<(typeof COLUMNS)[number], string> {
  const step = (ref?: { step: string; index?: number | undefined }) =>
    ref ? (ref.index === undefined ? ref.step : `${ref.step} ${ref.index}`) : "";
  return {
    key: item.key,
    status: item.status,
    promotionId: item.promotionId ?? "",
    versionId: item.versionId ?? "",
    submitStatus: item.submitStatus ?? "",
    evaluationId: item.evaluationId ?? "",
    error: item.error ? `${step(item.error)}: ${item.error.code}: ${item.error.message}` : "",
    ambiguousStep: step(item.ambiguous),
    // Ambiguous steps repeated on purpose (--retry-ambiguous): each may exist twice at the service.
    retriedSteps: (item.retried ?? []).map(step).join("; "),
  };
}

/** One CSV line: a value with a comma, a quote or a line break is quoted. */
const csvLine = (values: readonly string[]) =>
  values.map((value) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)).join(",");

/** Runs the manifest at `path`; resolves with the outcomes' counts. */
async function runManifest(ctx: CommandContext, path: string, options: RunOptions) {
  const manifest = manifestFile(path);
  const check = await manifest.check(ctx.signal);
  for (const problem of check.problems) ctx.out.note(describeProblem(problem));
  if (check.problems.length > 0 && !options.skipInvalid) {
    const lines = new Set(check.problems.map((problem) => problem.line)).size;
    throw new UsageError(
      `${lines} line${lines === 1 ? "" : "s"} of ${path} cannot be sent; nothing was sent (fix them, or pass --skip-invalid to run the rest)`,
      check.problems.map((problem) => ({
        field: `line ${problem.line} ${problem.field}`,
        message: problem.message,
      })),
    );
  }
  for (const line of describePlan(planBatch(check.totals))) ctx.out.note(line);
  const opened = await openJournal(options.journal, manifest.path);
  const { journal } = opened;
  ctx.out.note(`Journal: ${opened.where} (run the same command again to go on after a stop)`);
  async function* items(): AsyncGenerator<BatchItem> {
    for await (const entry of manifest.entries(ctx.signal)) if (entry.item) yield entry.item;
  }
  const counts = { done: 0, failed: 0, ambiguous: 0 };
  let retried = 0;
  const rows: ReturnType<typeof rowOf>[] = [];
  try {
    for await (const outcome of ctx.client().batch.run(items(), {
      journal,
      leaseWaitMs: opened.leaseWaitMs,
      concurrency: options.concurrency,
      retryAmbiguous: options.retryAmbiguous,
      total: check.totals.items,
      openFile: (file) => fileSource(file, { type: contentTypeOf(file) }),
      onProgress: (progress) => {
        if (ctx.out.json) return;
        const eta = progress.etaMs === undefined ? "" : `, about ${Math.ceil(progress.etaMs / 1000)} s left`;
        const waits = Object.entries(progress.waitedMs)
          .map(([budget, ms]) => `${budget} ${Math.round(ms / 1000)} s`)
          .join(", ");
        ctx.out.note(
          `${progress.done}/${progress.total ?? "?"} done${eta}${waits ? `; waited on ${waits}` : ""}`,
        );
      },
      ...ctx.signal,
    })) {
      counts[outcome.status] += 1;
      if (outcome.retried?.length && !outcome.fromJournal) retried += 1;
      const row = rowOf(outcome);
      // One JSON line per item as it finishes, for a script to follow.
      if (ctx.out.json) ctx.io.stdout.write(`${JSON.stringify(row)}\n`);
      else rows.push(row);
    }
  } finally {
    await opened.close();
  }
  if (!ctx.out.json) {
    ctx.io.stdout.write(
      `${[csvLine(COLUMNS), ...rows.map((row) => csvLine(COLUMNS.map((c) => row[c])))].join("\n")}\n`,
    );
  }
  ctx.out.note(`${counts.done} done, ${counts.failed} failed, ${counts.ambiguous} ambiguous`);
  if (retried > 0) {
    ctx.out.note(
      `${retried} item${retried === 1 ? "" : "s"} had an ambiguous step repeated on purpose (column retriedSteps): each may now exist twice at the service; search the web app for the item's key.`,
    );
  }
  if (counts.ambiguous > 0) {
    ctx.out.note(
      "An ambiguous step may have reached the service: check the web app, then run again with --retry-ambiguous to repeat it.",
    );
  }
  return counts;
}

/** Adds `batch run` and `batch report`. */
export function registerBatch(program: Command, io: CliIo): void {
  const batch = program
    .command("batch")
    .description("Run a manifest of promotions that survives a crash, and report where each item stands.");
  batch
    .command("run")
    .description(
      "Check a manifest (JSON Lines or CSV, one promotion a line), print its plan, and run it with a journal: the same command run again goes on where it stopped. Exit code 3 when any item failed or is ambiguous.",
    )
    .argument("<manifest>", "the manifest: .csv, else JSON Lines")
    .option(
      "--journal <path|url>",
      "the journal: a file (default: <manifest>.journal), or on Redis: redis://host:port/db?name=<journal>&lease-ttl=<s> (name defaults to the manifest's file name)",
    )
    .option("--concurrency <n>", "items at once (default 16)", integerIn(1, 64))
    .option(
      "--retry-ambiguous",
      "repeat the steps that may have reached the service without their answer recorded",
    )
    .option("--skip-invalid", "run the valid lines when some are not (each bad one is reported)")
    .addHelpText(
      "after",
      example(
        "$ promo-review batch run spring.csv",
        "$ promo-review batch run spring.jsonl --journal spring.journal --json",
        "$ promo-review batch run spring.csv --journal redis://10.0.0.5:6379/0?name=spring",
      ),
    )
    .action(async (manifest: string, options: RunOptions, command: Command) => {
      const counts = await runManifest(contextOf(command, io), manifest, options);
      if (counts.failed + counts.ambiguous > 0) throw new ReportedExit(EXIT.service);
    });
  batch
    .command("report")
    .description(
      "Print where every item of a journal stands: key, status, promotion id, first version id, submit status, evaluation id, error, ambiguous step, and the ambiguous steps repeated on purpose.",
    )
    .requiredOption("--journal <path|url>", "the journal: a file, or redis://host:port/db?name=<journal>")
    .addHelpText("after", example("$ promo-review batch report --journal spring.csv.journal --json"))
    .action(async (options: { journal: string }, command: Command) => {
      const ctx = contextOf(command, io);
      const opened = await openJournal(options.journal);
      let state: JournalState;
      try {
        state = await readState(opened.journal.read(ctx.signal));
      } finally {
        await opened.close();
      }
      const rows = [...state.items.values()].map((item) => rowOf(reportOf(item)));
      ctx.out.result({ batchId: state.batchId, items: rows }, () => [
        csvLine(COLUMNS),
        ...rows.map((row) => csvLine(COLUMNS.map((column) => row[column]))),
      ]);
    });
}
