/** `promo-review capture <url>`: capture a web page, design frame or drive file as an upload. */
import type { Command } from "commander";
import { contextOf, example } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";

/** Adds `capture`. */
export function registerCapture(program: Command, io: CliIo): void {
  program
    .command("capture")
    .description(
      "Capture a link (a web page, a design frame, a drive file) and wait for its import; prints the upload id and its file format.",
    )
    .argument("<url>", "the link to capture")
    .option("--frame <designFrameId>", "the design frame to capture (design links without node-id)")
    .addHelpText(
      "after",
      example(
        "$ promo-review capture https://example.com/offers/spring",
        "$ promo-review capture https://www.figma.com/design/AbC123/Spring --frame 1:2 --json",
      ),
    )
    .action(async (url: string, options: { frame?: string }, command: Command) => {
      const ctx = contextOf(command, io);
      const capture = await ctx.client().links.capture(url, {
        ...(options.frame ? { designFrameId: options.frame } : {}),
        ...ctx.signal,
      });
      ctx.out.result(capture, () =>
        fields([
          ["upload", capture.uploadId],
          ["file format", capture.fileFormat],
          ["source", capture.source],
          ["correlation id", capture.correlationId],
        ]),
      );
    });
}
