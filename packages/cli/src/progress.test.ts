import { describe, expect, it } from "vitest";
import { captureIo } from "../test/support/io.js";
import { formatBytes, uploadProgressBar } from "./progress.js";

describe("the upload progress bar", () => {
  it("draws on a terminal, from the acknowledged bytes, to 100%", () => {
    const captured = captureIo({}, { tty: true });
    const bar = uploadProgressBar(captured.io.stderr, "file.pdf", true);
    for (const acknowledged of [0, 512, 1024]) {
      bar.onProgress({ uploadId: "u", bytesSent: 1024, bytesAcknowledged: acknowledged, totalBytes: 1024 });
    }
    bar.stop();
    bar.stop();
    expect(bar.reports).toBe(3);
    expect(captured.stderr()).toMatch(/file\.pdf \[#{40}\] 100% \| 1\.0 KiB of 1\.0 KiB/);
    // Reports after stop() are counted but draw nothing.
    const drawn = captured.stderr();
    bar.onProgress({ uploadId: "u", bytesSent: 1024, bytesAcknowledged: 1024, totalBytes: 1024 });
    expect(captured.stderr()).toBe(drawn);
  });

  it("draws nothing when disabled, but counts", () => {
    const captured = captureIo({}, { tty: true });
    const bar = uploadProgressBar(captured.io.stderr, "file.pdf", false);
    bar.onProgress({ uploadId: "u", bytesSent: 1, bytesAcknowledged: 1, totalBytes: 1 });
    bar.stop();
    expect(bar.reports).toBe(1);
    expect(captured.stderr()).toBe("");
  });

  it("formats sizes", () => {
    expect([
      formatBytes(10),
      formatBytes(1536),
      formatBytes(5 * 1024 ** 2),
      formatBytes(3 * 1024 ** 3),
    ]).toEqual(["10 B", "1.5 KiB", "5.0 MiB", "3.0 GiB"]);
  });
});
