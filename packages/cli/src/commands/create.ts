/**
 * `promo-review create` and `promo-review version <promotionId>`: a promotion, or a new version of one,
 * from inline text (`--content`), uploads made earlier (`--upload`) or a local file (`--file`).
 */

import {
  type CreatePromotionRequest,
  FILE_FORMATS,
  type FileFormat,
  formatOf,
  type NewVersionRequest,
  validateCreatePromotion,
  validateNewVersion,
} from "@promo-review/sdk";
import { type Command, Option } from "commander";
import { type CommandContext, collect, contextOf, example } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";
import { UsageError } from "../usage-error.js";
import { uploadLocalFile } from "./upload.js";

/** The content flags `create` and `version` share. */
interface ContentOptions {
  content?: string;
  upload?: string[];
  file?: string;
  format?: FileFormat;
  contentType?: string;
  details?: string;
  caption?: string;
  notFinancial?: boolean;
}

function addContentOptions(command: Command): Command {
  return command
    .option("--content <text>", "inline text or HTML (format text)")
    .option("--upload <uploadId>", "an upload made earlier (repeatable); needs --format", collect)
    .option("--file <path>", "upload this file first and use it (format from its type)")
    .addOption(new Option("--format <format>", "file format of --upload").choices(FILE_FORMATS))
    .option("--content-type <type>", "MIME type of --file (default: from the extension)")
    .option("--details <text>", "notes for the reviewer (at most 1500 characters)")
    .option("--caption <text>", "the caption published with it")
    .option("--not-financial", "not a financial promotion (its evaluation is skipped)");
}

/** The content fields of the body, uploading `--file` first when given. */
async function contentOf(
  ctx: CommandContext,
  options: ContentOptions,
): Promise<{ fileFormat: FileFormat; content?: string; uploadIds?: string[] }> {
  const given = [options.content, options.upload, options.file].filter((value) => value !== undefined);
  if (given.length !== 1) {
    throw new UsageError("Give the content in one way", [
      { field: "--content | --upload | --file", message: "exactly one of them is required" },
    ]);
  }
  if (options.content !== undefined) {
    if (options.format && options.format !== "text") {
      throw new UsageError("Inline content is text", [
        { field: "--format", message: "must be text (or left out) with --content" },
      ]);
    }
    return { fileFormat: "text", content: options.content };
  }
  if (options.upload) {
    if (!options.format || options.format === "text") {
      throw new UsageError("The uploads' file format is needed", [
        { field: "--format", message: "is required with --upload: pdf, image, video, audio or document" },
      ]);
    }
    return { fileFormat: options.format, uploadIds: options.upload };
  }
  const uploaded = await uploadLocalFile(ctx, options.file as string, {
    contentType: options.contentType || undefined,
  });
  // uploadLocalFile refused any type the service does not take, so the format is known.
  return { fileFormat: formatOf(uploaded.contentType) as FileFormat, uploadIds: [uploaded.uploadId] };
}

/** `--meta key=value` pairs as an object; a pair without `=` is a usage error. */
export function metadataOf(pairs: string[] = []): Record<string, string> | undefined {
  if (pairs.length === 0) return undefined;
  const entries = pairs.map((pair) => {
    const at = pair.indexOf("=");
    if (at <= 0) {
      throw new UsageError(`Bad metadata "${pair}"`, [{ field: "--meta", message: "must be key=value" }]);
    }
    return [pair.slice(0, at), pair.slice(at + 1)] as const;
  });
  // fromEntries defines each key: an assignment would turn `__proto__=x` into nothing at all.
  return Object.fromEntries(entries);
}

interface CreateOptions extends ContentOptions {
  name: string;
  product: string[];
  channel: string[];
  jurisdiction?: string;
  targetMarket?: string[];
  tag?: string[];
  meta?: string[];
  type?: CreatePromotionRequest["promotionType"];
  deadline?: string;
  nextReviewDate?: string;
  paid?: boolean;
  evergreen?: boolean;
}

/** Adds `create`. */
export function registerCreate(program: Command, io: CliIo): void {
  const command = program
    .command("create")
    .description(
      "Create a promotion with its first version. Ids come from `channels`, `jurisdictions` and `products`.",
    )
    .requiredOption("--name <name>", "the promotion's name")
    .requiredOption("--product <id>", "a product id (repeatable, at least one)", collect)
    .requiredOption("--channel <id>", "a channel id (repeatable, at least one)", collect)
    .option("--jurisdiction <id>", "the jurisdiction id")
    .option("--target-market <id>", "a target market id (repeatable)", collect)
    .option("--tag <tag>", "a tag (repeatable, at most 20)", collect)
    .option("--meta <key=value>", "a metadata entry (repeatable, at most 20)", collect)
    .addOption(new Option("--type <type>", "promotion type").choices(["single", "carousel", "variations"]))
    .option("--deadline <date>", "review deadline, YYYY-MM-DD or an ISO date-time")
    .option("--next-review-date <datetime>", "ISO date-time with offset")
    .option("--paid", "a paid promotion")
    .option("--evergreen", "an evergreen promotion");
  addContentOptions(command)
    .addHelpText(
      "after",
      example(
        "$ promo-review create --name 'Spring ISA' --product <productId> --channel <channelId> \\",
        "    --jurisdiction <jurisdictionId> --content 'Save 5% this spring.' --tag spring --meta campaign=spring-2026",
        "$ promo-review create --name 'Spring flyer' --product <id> --channel <id> --file flyer.pdf --json",
      ),
    )
    .action(async (options: CreateOptions, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      const metadata = metadataOf(options.meta);
      const body: CreatePromotionRequest = {
        promotionName: options.name,
        productIds: options.product,
        channelIds: options.channel,
        // JSON.stringify leaves out what is undefined; an empty flag value is no value.
        jurisdictionId: options.jurisdiction || undefined,
        targetMarketIds: options.targetMarket,
        tags: options.tag,
        metadata,
        promotionType: options.type || undefined,
        deadline: options.deadline || undefined,
        nextReviewDate: options.nextReviewDate || undefined,
        paidPromotion: options.paid ? true : undefined,
        evergreen: options.evergreen ? true : undefined,
        details: options.details,
        caption: options.caption,
        isFinancialPromotion: options.notFinancial ? false : undefined,
      };
      // The body is checked by the SDK before the content is uploaded, so a bad flag costs no upload.
      validateCreatePromotion({ ...body, fileFormat: "text", content: "-" });
      const created = await ctx
        .client()
        .promotions.create({ ...body, ...(await contentOf(ctx, options)) }, ctx.signal);
      ctx.out.result(created, () =>
        fields([
          ["promotion", created.promotionId],
          ["public id", created.publicId],
          ["version", `${created.version} (${created.versionId})`],
          ["tags", created.tags],
          ["metadata", Object.keys(created.metadata).length > 0 ? created.metadata : undefined],
          ["correlation id", created.correlationId],
        ]),
      );
    });
}

/** Adds `version`. */
export function registerVersion(program: Command, io: CliIo): void {
  const command = program
    .command("version")
    .description("Add a new version to a promotion; it becomes the latest (read it with `get`).")
    .argument("<promotionId>", "the promotion");
  addContentOptions(command)
    .addHelpText(
      "after",
      example(
        "$ promo-review version 0b6e... --content 'Save 5% this spring. Capital at risk.'",
        "$ promo-review version 0b6e... --file flyer-v2.pdf --details 'Risk warning added'",
      ),
    )
    .action(async (promotionId: string, options: ContentOptions, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      const body: NewVersionRequest = {
        details: options.details,
        caption: options.caption,
        isFinancialPromotion: options.notFinancial ? false : undefined,
      };
      // Checked before --file is uploaded, so a bad flag costs no upload.
      validateNewVersion({ ...body, fileFormat: "text", content: "-" });
      const created = await ctx
        .client()
        .promotions.createVersion(promotionId, { ...body, ...(await contentOf(ctx, options)) }, ctx.signal);
      ctx.out.result(created, () =>
        fields([
          ["promotion", promotionId],
          ["version", `${created.version} (${created.versionId})`],
          ["correlation id", created.correlationId],
        ]),
      );
    });
}
