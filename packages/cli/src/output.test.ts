import {
  AbortError,
  NetworkError,
  PayloadTooLargeError,
  RateLimitError,
  ValidationError,
} from "@promo-review/sdk";
import { describe, expect, it } from "vitest";
import { captureIo } from "../test/support/io.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { createOutput, describeError, fields, table } from "./output.js";
import { UsageError } from "./usage-error.js";

describe("exit codes: one per kind of failure", () => {
  it.each([
    [new UsageError("bad"), EXIT.usage],
    [new ValidationError({ code: "VALIDATION_ERROR", message: "m", local: true }), EXIT.usage],
    [new ValidationError({ code: "VALIDATION_ERROR", message: "m", status: 400 }), EXIT.service],
    [new RateLimitError({ code: "RATE_LIMITED", message: "m", status: 429 }), EXIT.service],
    [new NetworkError({ code: "NETWORK_ERROR", message: "m", mayHaveReachedServer: false }), EXIT.network],
    [new AbortError({ code: "ABORTED", message: "m", mayHaveReachedServer: false }), EXIT.interrupted],
    [new TypeError("a bug"), EXIT.unexpected],
    ["a string", EXIT.unexpected],
  ])("%s -> %i", (error, code) => expect(exitCodeOf(error)).toBe(code));
});

describe("error output: the code, the field, the limit, the correlation id; a stack only with --debug", () => {
  const tooLarge = new PayloadTooLargeError({
    code: "PAYLOAD_TOO_LARGE",
    message: "The file is too large",
    status: 413,
    correlationId: "corr-1",
    retryAfterMs: 1500,
    details: [
      { type: "field_error", field: "fileSize", message: "is over the limit" },
      { type: "constraint_violation", constraint: "max_file_size", limit: 10, actual: 11 },
    ],
  });

  it("takes the SDK's error apart into its lines", () => {
    expect(describeError(tooLarge)).toEqual({
      message: "The file is too large",
      code: "PAYLOAD_TOO_LARGE",
      status: 413,
      fields: [{ field: "fileSize", message: "is over the limit" }],
      limits: [{ constraint: "max_file_size", limit: 10, actual: 11 }],
      correlationId: "corr-1",
      retryAfterMs: 1500,
    });
    const captured = captureIo();
    expect(createOutput(captured.io, { json: false, debug: false }).failure(tooLarge)).toBe(EXIT.service);
    expect(captured.stderr()).toBe(
      [
        "promo-review: The file is too large",
        "  code:           PAYLOAD_TOO_LARGE (HTTP 413)",
        "  field:          fileSize: is over the limit",
        "  limit:          max_file_size 10, actual 11",
        "  retry after:    1.5 s",
        "  correlation id: corr-1 (quote it to support)",
        "",
      ].join("\n"),
    );
  });

  it("calls an unknown failure a bug, and shows its stack with --debug", () => {
    const quiet = captureIo();
    expect(createOutput(quiet.io, { json: false, debug: false }).failure(new TypeError("boom"))).toBe(
      EXIT.unexpected,
    );
    expect(quiet.stderr()).toContain("promo-review: boom\nThis looks like a bug: run again with --debug");
    expect(quiet.stderr()).not.toMatch(/\n\s+at /);
    const loud = captureIo();
    createOutput(loud.io, { json: true, debug: true }).failure(new TypeError("boom"));
    const [json, ...stack] = loud.stderr().split("\n");
    expect(JSON.parse(json!)).toEqual({
      error: { message: "boom", fields: [], limits: [], exitCode: EXIT.unexpected },
    });
    expect(stack.join("\n")).toMatch(/TypeError: boom\n\s+at /);
    expect(describeError(42)).toEqual({ message: "42", fields: [], limits: [] });
  });
});

describe("human layouts", () => {
  it("aligns tables and fields, skipping empty values", () => {
    expect(
      table([
        ["ID", "NAME"],
        ["a", "Alpha"],
        ["bbbb", "B"],
      ]),
    ).toEqual(["ID    NAME", "a     Alpha", "bbbb  B"]);
    expect(
      fields([
        ["id", "x"],
        ["empty", ""],
        ["none", undefined],
        ["list", ["a", "b"]],
        ["obj", { k: 1 }],
      ]),
    ).toEqual(["id:   x", "list: a, b", 'obj:  {"k":1}']);
  });
});
