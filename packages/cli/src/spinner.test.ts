import { describe, expect, it } from "vitest";
import { captureIo } from "../test/support/io.js";
import { captureStatus } from "./commands/capture.js";
import { resumedLine } from "./commands/upload.js";
import { drawsOn, waitSpinner } from "./spinner.js";

describe("waits are drawn only on a terminal with cursor control, and never under --json", () => {
  it("draws on a terminal stream, not on a pipe, not under --json", () => {
    const terminal = captureIo({}, { tty: true }).io.stderr;
    expect(drawsOn(terminal, false)).toBe(true);
    expect(drawsOn(terminal, true)).toBe(false);
    expect(drawsOn(captureIo().io.stderr, false)).toBe(false);
    // A stream that says it is a terminal but cannot move its cursor cannot host a spinner.
    expect(drawsOn({ write: () => true, isTTY: true }, false)).toBe(false);
  });

  it("keeps the statuses it was given, each once in a row, and nothing after stop", () => {
    const captured = captureIo({}, { tty: true });
    const spinner = waitSpinner(captured.io.stderr, true);
    spinner.status("one");
    spinner.status("one");
    spinner.status("two");
    spinner.stop();
    spinner.stop();
    spinner.status("three");
    expect(spinner.seen).toEqual(["one", "two"]);
    const silent = waitSpinner(captureIo().io.stderr, false);
    silent.status("quiet");
    silent.stop();
    expect(silent.seen).toEqual(["quiet"]);
  });
});

describe("status lines", () => {
  const error = { code: "UPSTREAM_ERROR" } as Parameters<typeof captureStatus>[1] extends infer E
    ? E extends { error: infer X }
      ? X
      : never
    : never;

  it("say what a capture is waiting for", () => {
    const url = "https://drive.example/file";
    expect(
      captureStatus(url, { type: "status", status: "processing", attempts: 2, nextPollInMs: 1500 }),
    ).toBe(`importing ${url}: processing (poll 2, next in 1.5 s)`);
    expect(captureStatus(url, { type: "throttled", attempts: 1, delayMs: 3000, error })).toBe(
      `importing ${url}: rate limited, waiting 3.0 s`,
    );
    expect(captureStatus(url, { type: "retrying", attempts: 1, delayMs: 2500, error })).toBe(
      `importing ${url}: retrying in 2.5 s after UPSTREAM_ERROR`,
    );
  });

  it("say where a resumed upload continued from, and nothing for a new one", () => {
    expect(resumedLine({ resumedFrom: 0, fileSize: 10 })).toBeUndefined();
    expect(resumedLine({ resumedFrom: 74_000_000, fileSize: 300_000_000 })).toBe(
      "from byte 74000000 of 300000000 (24%), which the service already held",
    );
  });
});
