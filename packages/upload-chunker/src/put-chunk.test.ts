import {
  AbortError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  TimeoutError,
  ValidationError,
} from "@promo-review/errors";
import { describe, expect, it } from "vitest";
import { chunkEnd, contentRange } from "./chunks.js";
import { classifyChunkFailure } from "./put-chunk.js";

const base = { code: "X", message: "m" };
const violation = (constraint: string, limit: number) => ({
  type: "constraint_violation" as const,
  constraint,
  limit,
  actual: limit + 1,
});

describe("a failed chunk PUT is retried, resynchronised, shrunk or final", () => {
  it.each([
    ["network error", new NetworkError({ ...base, mayHaveReachedServer: true }), { action: "retry" }],
    ["timeout", new TimeoutError({ ...base, mayHaveReachedServer: true }), { action: "retry" }],
    ["429", new RateLimitError(base), { action: "retry" }],
    ["5xx", new ServerError(base), { action: "retry" }],
    [
      "409 naming the expected offset",
      new ConflictError({ ...base, details: [violation("content_range_start", 4096)] }),
      { action: "resync", offset: 4096 },
    ],
    ["409 without details", new ConflictError(base), { action: "resync", offset: undefined }],
    [
      "413 naming max_chunk_size",
      new PayloadTooLargeError({ ...base, details: [violation("max_chunk_size", 1024)] }),
      { action: "shrink", maxChunkSize: 1024 },
    ],
    [
      "413 naming max_file_size",
      new PayloadTooLargeError({ ...base, details: [violation("max_file_size", 1024)] }),
      { action: "fail" },
    ],
    ["400", new ValidationError(base), { action: "fail" }],
    ["404", new NotFoundError(base), { action: "fail" }],
    ["abort", new AbortError({ ...base, mayHaveReachedServer: true }), { action: "fail" }],
  ])("%s", (_name, error, expected) => {
    expect(classifyChunkFailure(error)).toEqual(expected);
  });
});

describe("chunk ranges", () => {
  it("Content-Range is inclusive on the wire; the last chunk may be smaller", () => {
    expect(contentRange(0, 1, 1)).toBe("bytes 0-0/1");
    expect(contentRange(65_536, 131_072, 131_073)).toBe("bytes 65536-131071/131073");
    expect(chunkEnd(0, 10, 25)).toBe(10);
    expect(chunkEnd(20, 10, 25)).toBe(25);
  });
});
