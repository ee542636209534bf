/** `promo-review upload <file>`: a chunked, resumable upload with a progress bar on a terminal. */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { UploadResult } from "@promo-review/sdk";
import { fileSource } from "@promo-review/sdk/node";
import type { Command } from "commander";
import { contentTypeOf } from "../content-types.js";
import { type CommandContext, contextOf, example, integerIn } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";
import { formatBytes, uploadProgressBar } from "../progress.js";
import { UsageError } from "../usage-error.js";

/** How to upload a local file. */
export interface LocalUploadOptions {
  /** Overrides the type guessed from the extension. */
  contentType?: string;
  /** Bytes per chunk, below the service's maximum. */
  chunkSize?: number;
}

/**
 * Uploads the file at `path` and waits until the service has processed it. A missing file, a directory
 * or an unknown extension is a usage error, found before anything is sent.
 */
export async function uploadLocalFile(
  ctx: CommandContext,
  path: string,
  options: LocalUploadOptions = {},
): Promise<UploadResult & { contentType: string }> {
  const info = await stat(path).catch(() => undefined);
  if (!info)
    throw new UsageError(`No such file: ${path}`, [{ field: "<file>", message: `${path} does not exist` }]);
  if (!info.isFile()) {
    throw new UsageError(`Not a file: ${path}`, [
      { field: "<file>", message: `${path} is not a regular file` },
    ]);
  }
  const fileName = basename(path);
  const contentType = options.contentType ?? contentTypeOf(fileName);
  if (!contentType) {
    throw new UsageError(`Cannot tell the type of ${fileName}`, [
      {
        field: "--content-type",
        message: "is required for a file without a known extension (e.g. application/pdf)",
      },
    ]);
  }
  const client = ctx.client();
  const bar = uploadProgressBar(ctx.io.stderr, fileName, Boolean(ctx.io.stderr.isTTY) && !ctx.out.json);
  try {
    const result = await client.uploads.upload(await fileSource(path), {
      fileName,
      contentType,
      onProgress: bar.onProgress,
      ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
      ...ctx.signal,
    });
    return { ...result, contentType };
  } finally {
    bar.stop();
  }
}

/** Adds `upload`. */
export function registerUpload(program: Command, io: CliIo): void {
  program
    .command("upload")
    .description("Upload a file to the file service and wait until it is processed; prints the upload id.")
    .argument("<file>", "the file to upload")
    .option("--content-type <type>", "MIME type (default: from the extension)")
    .option("--chunk-size <bytes>", "bytes per chunk (default: the service's maximum)", integerIn(1, 2 ** 31))
    .addHelpText(
      "after",
      example(
        "$ promo-review upload flyer.pdf",
        "$ promo-review upload clip.bin --content-type video/mp4 --json",
      ),
    )
    .action(async (file: string, options: { contentType?: string; chunkSize?: number }, command: Command) => {
      const ctx = contextOf(command, io);
      const result = await uploadLocalFile(ctx, file, options);
      ctx.out.result(result, () =>
        fields([
          ["upload", result.uploadId],
          ["status", result.status],
          ["file", `${result.fileName} (${formatBytes(result.fileSize)})`],
          ["correlation id", result.correlationId],
        ]),
      );
    });
}
