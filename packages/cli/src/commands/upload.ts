/**
 * `promo-review upload <file>`: a chunked upload with a progress bar on a terminal, remembered in the
 * user's cache directory so that the same command run again (after Ctrl-C, a crash, a reboot)
 * continues from the byte the service acknowledged, and says so.
 */
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { AbortError, startUpload, type UploadResult } from "@promo-review/sdk";
import { fileSource } from "@promo-review/sdk/node";
import { uploadStateOf } from "@promo-review/upload-chunker";
import type { Command } from "commander";
import { contentTypeOf } from "../content-types.js";
import { type CommandContext, contextOf, example, integerIn } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";
import { formatBytes, uploadProgressBar } from "../progress.js";
import { CACHE_DIR_VARIABLE, uploadStateDirectory } from "../resume.js";
import { drawsOn, waitSpinner } from "../spinner.js";
import { UsageError } from "../usage-error.js";

/** How to upload a local file. */
export interface LocalUploadOptions {
  /** Overrides the type guessed from the extension. */
  contentType?: string;
  /** Bytes per chunk, below the service's maximum. */
  chunkSize?: number;
}

/** Where an upload was continued from, in words (`undefined` for a new upload). */
export function resumedLine(result: { resumedFrom: number; fileSize: number }): string | undefined {
  if (result.resumedFrom === 0) return undefined;
  const percent = Math.floor((result.resumedFrom / result.fileSize) * 100);
  return `from byte ${result.resumedFrom} of ${result.fileSize} (${percent}%), which the service already held`;
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
  const draws = drawsOn(ctx.io.stderr, ctx.out.json);
  const bar = uploadProgressBar(ctx.io.stderr, fileName, draws);
  const spinner = waitSpinner(ctx.io.stderr, draws);
  try {
    const upload = startUpload(client.uploads, await fileSource(path), {
      fileName,
      contentType,
      onProgress: (progress) => {
        bar.onProgress(progress);
        if (progress.bytesAcknowledged === progress.totalBytes) {
          bar.stop();
          spinner.status(`${fileName}: all bytes stored; waiting for the file service to process it`);
        }
      },
      chunkSize: options.chunkSize || undefined,
      ...ctx.signal,
    });
    // Said before any byte is sent, so a person sees at once that the earlier run was not wasted.
    upload.on("initiated", ({ uploadId, resumedFrom }) => {
      const line = resumedLine({ resumedFrom, fileSize: info.size });
      if (line) ctx.out.note(`Resuming upload ${uploadId} ${line}`);
    });
    const result = await upload.done;
    return { ...result, contentType };
  } catch (error) {
    const state = uploadStateOf(error);
    if (error instanceof AbortError && state) {
      bar.stop();
      ctx.out.note(
        `Upload ${state.uploadId} stopped at byte ${state.bytesAcknowledged} of ${state.fileSize}; run the same command again to continue from there (state in ${uploadStateDirectory(ctx.env)}).`,
      );
    }
    throw error;
  } finally {
    bar.stop();
    spinner.stop();
  }
}

/** Adds `upload`. */
export function registerUpload(program: Command, io: CliIo): void {
  program
    .command("upload")
    .description(
      "Upload a file to the file service and wait until it is processed; prints the upload id. An unfinished upload of the same file (stopped by Ctrl-C, a crash or a reboot) is continued from the byte the service holds.",
    )
    .argument("<file>", "the file to upload")
    .option("--content-type <type>", "MIME type (default: from the extension)")
    .option("--chunk-size <bytes>", "bytes per chunk (default: the service's maximum)", integerIn(1, 2 ** 31))
    .addHelpText(
      "after",
      `${example(
        "$ promo-review upload flyer.pdf",
        "$ promo-review upload clip.bin --content-type video/mp4 --json",
      )}
Unfinished uploads are remembered in ${CACHE_DIR_VARIABLE}/uploads, else the user's cache directory
($XDG_CACHE_HOME/promo-review/uploads, ~/.cache/promo-review/uploads or the platform's equivalent).
`,
    )
    .action(async (file: string, options: { contentType?: string; chunkSize?: number }, command: Command) => {
      const ctx = contextOf(command, io);
      const result = await uploadLocalFile(ctx, file, options);
      ctx.out.result(result, () =>
        fields([
          ["upload", result.uploadId],
          ["status", result.status],
          ["file", `${result.fileName} (${formatBytes(result.fileSize)})`],
          ["resumed", resumedLine(result)],
          ["correlation id", result.correlationId],
        ]),
      );
    });
}
