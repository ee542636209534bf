/** `promo-review capture <url>`: capture a web page, design frame or drive file as an upload. */
import type { PromoReviewClient } from "@promo-review/sdk";
import type { Command } from "commander";
import { contextOf, example } from "../context.js";
import type { CliIo } from "../io.js";
import { fields } from "../output.js";
import { drawsOn, waitSpinner } from "../spinner.js";

/** A capture's progress event (link-capture's `CaptureEvent`, as the SDK's `capture` passes it). */
type CaptureEvent = Parameters<
  NonNullable<NonNullable<Parameters<PromoReviewClient["links"]["capture"]>[1]>["onStatus"]>
>[0];

/** The spinner's line for a capture's progress event. */
export function captureStatus(url: string, event: CaptureEvent): string {
  switch (event.type) {
    case "status":
      return `importing ${url}: ${event.status} (poll ${event.attempts}, next in ${(event.nextPollInMs / 1000).toFixed(1)} s)`;
    case "throttled":
      return `importing ${url}: rate limited, waiting ${(event.delayMs / 1000).toFixed(1)} s`;
    case "retrying":
      return `importing ${url}: retrying in ${(event.delayMs / 1000).toFixed(1)} s after ${event.error.code}`;
    default:
      return `importing ${url}: ${event.type}`;
  }
}

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
      const spinner = waitSpinner(ctx.io.stderr, drawsOn(ctx.io.stderr, ctx.out.json));
      spinner.status(`capturing ${url}`);
      const capture = await ctx
        .client()
        .links.capture(url, {
          designFrameId: options.frame || undefined,
          onStatus: (event) => spinner.status(captureStatus(url, event)),
          ...ctx.signal,
        })
        .finally(() => spinner.stop());
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
