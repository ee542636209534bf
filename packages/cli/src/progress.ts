/**
 * The upload progress bar (cli-progress), drawn on stderr and only on a terminal: piped output and
 * `--json` stay free of control characters, and stdout stays the result alone.
 */
import type { UploadProgress } from "@promo-review/sdk";
import cliProgress from "cli-progress";
import type { CliStream } from "./io.js";

/** Follows one upload. */
export interface UploadProgressBar {
  /** Pass as the upload's `onProgress`. */
  onProgress(progress: UploadProgress): void;
  /** Draws the final state and releases the terminal line. Safe to call twice. */
  stop(): void;
  /** Progress reports received (a bar moves once per report). */
  readonly reports: number;
}

/** Formats a byte count for people: `312.5 KiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * A bar for an upload of `label`. With `enabled` false (not a terminal, or `--json`) nothing is drawn
 * but reports are still counted.
 */
export function uploadProgressBar(stream: CliStream, label: string, enabled: boolean): UploadProgressBar {
  let reports = 0;
  let bar: cliProgress.SingleBar | undefined;
  let stopped = false;
  const payload = (p: UploadProgress) => ({
    sent: formatBytes(p.bytesAcknowledged),
    size: formatBytes(p.totalBytes),
  });
  return {
    get reports() {
      return reports;
    },
    onProgress(progress) {
      reports++;
      if (!enabled || stopped) return;
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            // The stream is the run's stderr: a real terminal, or a capture in tests.
            stream: stream as unknown as NodeJS.WritableStream,
            format: `${label} [{bar}] {percentage}% | {sent} of {size} | {duration_formatted}`,
            barCompleteChar: "#",
            barIncompleteChar: "-",
            hideCursor: false,
            clearOnComplete: false,
            fps: 20,
          },
          cliProgress.Presets.legacy,
        );
        bar.start(progress.totalBytes, progress.bytesAcknowledged, payload(progress));
      }
      // Acknowledged bytes, not sent ones: the bar never runs ahead of what the service holds.
      bar.update(progress.bytesAcknowledged, payload(progress));
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar?.stop();
    },
  };
}
