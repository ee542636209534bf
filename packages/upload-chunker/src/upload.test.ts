import { writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PayloadTooLargeError, ValidationError } from "@promo-review/errors";
import type { Simulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chunkPuts,
  patterned,
  SOURCE_KINDS,
  sha256,
  simulatorWithUploader,
} from "../test/support/uploads.js";
import {
  createUploader,
  fromStream,
  startUpload,
  type Uploader,
  type UploadProgress,
  uploadStateOf,
} from "./index.js";
import { fileSource } from "./node.js";

const CHUNK = 64 * 1024;
let sim: Simulator;
let uploader: Uploader;

beforeAll(async () => {
  ({ sim, uploader } = await simulatorWithUploader({ maxChunkSize: CHUNK }));
});
afterAll(() => sim.close());

async function expectStored(uploadId: string, bytes: Uint8Array) {
  const stored = sim.control.upload(uploadId);
  expect(stored.size).toBe(bytes.length);
  expect(stored.sha256).toBe(sha256(bytes));
  expect(stored.status).toBe("completed");
}

describe("every source kind arrives byte for byte, at the sizes around the chunk boundary", () => {
  for (const [kind, make] of Object.entries(SOURCE_KINDS)) {
    for (const size of [1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17]) {
      it(`${kind}, ${size} bytes`, async () => {
        const bytes = patterned(size, size);
        const { source, size: declared } = make(bytes);
        const result = await uploader.upload(source, {
          fileName: "brochure.pdf",
          contentType: "application/pdf",
          ...(declared === undefined ? {} : { size: declared }),
        });
        expect(result).toMatchObject({ status: "completed", fileSize: size, resumedFrom: 0, retries: 0 });
        await expectStored(result.uploadId, bytes);
        // Exact ranges, in order, none over the service's maxChunkSize.
        const expected: string[] = [];
        for (let at = 0; at < size; at += CHUNK)
          expected.push(`bytes ${at}-${Math.min(size, at + CHUNK) - 1}/${size}`);
        expect(chunkPuts(sim, result.uploadId).map((p) => p.range)).toEqual(expected);
      });
    }
  }

  it("a file path through the ./node entry (fs.openAsBlob)", async () => {
    const bytes = patterned(5 * CHUNK + 3, 9);
    const path = join(tmpdir(), `upload-chunker-${process.pid}.mp4`);
    await writeFile(path, bytes);
    const file = await fileSource(path, { type: "video/mp4" });
    expect(file).toMatchObject({
      name: `upload-chunker-${process.pid}.mp4`,
      size: bytes.length,
      type: "video/mp4",
    });
    const result = await uploader.upload(file, { fileName: file.name, contentType: file.type });
    await expectStored(result.uploadId, bytes);
  });

  it("a file path that changes after fileSource() fails instead of sending a mix of bytes", async () => {
    const bytes = patterned(3 * CHUNK, 10);
    const path = join(tmpdir(), `upload-chunker-changed-${process.pid}.mp4`);
    await writeFile(path, bytes);
    const file = await fileSource(path, { type: "video/mp4" });
    await writeFile(path, patterned(3 * CHUNK + 1, 11));
    const error = await uploader
      .upload(file, { fileName: file.name, contentType: file.type, waitForCompletion: false })
      .catch((e: unknown) => e);
    // The fingerprint reads the file's first bytes before anything is sent: nothing was initiated.
    // A source failure is typed (SOURCE_ERROR), with the runtime's own error as its cause.
    expect(error).toMatchObject({ code: "SOURCE_ERROR", message: expect.stringMatching(/changed/) });
    expect((error as Error).cause).toMatchObject({ name: "NotReadableError" });
    expect(uploadStateOf(error)).toBeUndefined();

    // Changed after the first chunk: the next chunks are refused, the first stays the only one stored.
    await writeFile(path, bytes);
    const again = await fileSource(path, { type: "video/mp4" });
    const upload = startUpload(uploader, again, { fileName: again.name, contentType: again.type });
    upload.once("chunk", () => writeFileSync(path, patterned(3 * CHUNK + 1, 12)));
    const failed = await upload.done.catch((e: unknown) => e);
    expect(uploadStateOf(failed)).toMatchObject({ bytesAcknowledged: CHUNK });
    expect(sim.control.upload(upload.uploadId!).receivedBytes).toBe(CHUNK);
  });

  it("random sizes and random stream piece sizes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 * CHUNK }),
        fc.constantFrom(...Object.keys(SOURCE_KINDS)),
        fc.integer({ min: 1, max: 2 ** 31 }),
        async (size, kind, seed) => {
          const bytes = patterned(size, seed);
          const { source, size: declared } = SOURCE_KINDS[kind]!(bytes);
          const result = await uploader.upload(source, {
            fileName: `f-${seed}.png`,
            contentType: "image/png",
            ...(declared === undefined ? {} : { size: declared }),
          });
          await expectStored(result.uploadId, bytes);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("size 0 and other uploads the service would refuse are refused before any request", () => {
  it.each(Object.keys(SOURCE_KINDS))("an empty %s", async (kind) => {
    const before = sim.control.requests().length;
    const { source, size } = SOURCE_KINDS[kind]!(new Uint8Array(0));
    const error = await uploader
      .upload(source, {
        fileName: "empty.pdf",
        contentType: "application/pdf",
        ...(size === undefined ? {} : { size }),
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).local).toBe(true);
    expect((error as ValidationError).fieldErrors.map((f) => f.field)).toEqual(["fileSize"]);
    expect(sim.control.requests().length).toBe(before);
  });

  it("an empty name, an empty content type, a size over the format's limit", async () => {
    const before = sim.control.requests().length;
    const big = { size: 31_457_281, stream: fromStream(new ReadableStream<Uint8Array>()) };
    const error = (await uploader
      .upload(big.stream, { fileName: " ", contentType: "", size: big.size })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error.fieldErrors.map((f) => f.field)).toEqual(["fileName", "contentType"]);
    const tooBig = (await uploader
      .upload(fromStream(new ReadableStream<Uint8Array>()), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: big.size,
      })
      .catch((e: unknown) => e)) as ValidationError;
    expect(tooBig.local).toBe(true);
    expect(tooBig.constraintViolations).toEqual([
      { type: "constraint_violation", constraint: "max_file_size", limit: 31_457_280, actual: 31_457_281 },
    ]);
    expect(sim.control.requests().length).toBe(before);
  });

  it("a stream without a declared size, and a declared size that disagrees with a Blob", async () => {
    const noSize = await uploader
      .upload(fromStream(new ReadableStream<Uint8Array>()), {
        fileName: "a.pdf",
        contentType: "application/pdf",
      })
      .catch((e: unknown) => e);
    expect((noSize as ValidationError).fieldErrors[0]?.field).toBe("size");
    // A stream given as it is: the error names the import that reads it.
    const raw = await uploader
      .upload(new ReadableStream<Uint8Array>() as never, {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: 3,
      })
      .catch((e: unknown) => e);
    expect((raw as ValidationError).fieldErrors[0]).toMatchObject({
      field: "source",
      message: expect.stringMatching(/fromStream\(stream\) from @promo-review\/upload-chunker/),
    });
    expect(() => fromStream("abc" as never)).toThrow(
      /ReadableStream or AsyncIterable of bytes, not a string/,
    );
    const wrong = await uploader
      .upload(new Blob(["abc"]), { fileName: "a.pdf", contentType: "application/pdf", size: 4 })
      .catch((e: unknown) => e);
    expect((wrong as ValidationError).fieldErrors[0]?.message).toMatch(/holds 3 bytes/);
  });

  it("a stream shorter or longer than declared fails before its last chunk is sent", async () => {
    const bytes = patterned(2 * CHUNK + 5);
    const short = await uploader
      .upload(fromStream(new Blob([bytes as BlobPart]).stream()), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: bytes.length + 1,
      })
      .catch((e: unknown) => e);
    expect(short).toBeInstanceOf(ValidationError);
    expect((short as Error).message).toMatch(/ended after 131077 bytes; 131078 were declared/);
    const long = await uploader
      .upload(fromStream(new Blob([bytes as BlobPart]).stream()), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: bytes.length - 1,
      })
      .catch((e: unknown) => e);
    expect((long as Error).message).toMatch(/holds more than the declared 131076 bytes/);
    // Neither upload got its final chunk: the service never saw a complete, wrong file.
    const completed = sim.control
      .requests()
      .filter((r) => r.method === "PUT" && /\/13107[67]$/.test(r.headers["content-range"] ?? ""));
    expect(completed).toEqual([]);
  });

  it("a source that is not bytes", async () => {
    const error = await uploader
      .upload("text" as never, { fileName: "a.txt", contentType: "text/plain" })
      .catch((e: unknown) => e);
    expect((error as ValidationError).fieldErrors[0]?.field).toBe("source");
  });
});

describe("the service's PAYLOAD_TOO_LARGE is still handled when the local table is out of date", () => {
  it("a size the local table lets through but the service refuses", async () => {
    // Stands in for a service whose limit shrank: the declared size grows on the wire only.
    const inflating: typeof fetch = async (input, init) => {
      const request = new Request(input as Request, init);
      if (request.method !== "POST") return fetch(request);
      const body = (await request.json()) as { fileSize: number };
      return fetch(new Request(request, { body: JSON.stringify({ ...body, fileSize: 40_000_000 }) }));
    };
    const stale = createUploader({
      filesUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
      fetch: inflating,
    });
    const error = await stale
      .upload(patterned(10), { fileName: "a.pdf", contentType: "application/pdf" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as PayloadTooLargeError).constraintViolations[0]).toMatchObject({
      constraint: "max_file_size",
      limit: 31_457_280,
      actual: 40_000_000,
    });
  });
});

describe("authentication for both kinds of caller", () => {
  it("an API key sends X-External-User-ID and X-External-User-Email", async () => {
    const keyed = createUploader({
      filesUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: "u-7",
      externalUserEmail: "u7@example.com",
    });
    const result = await keyed.upload(patterned(100), { fileName: "a.pdf", contentType: "application/pdf" });
    const headers = sim.control
      .requests()
      .filter((r) => r.path.includes(result.uploadId) || r.method === "POST")
      .at(-1)!.headers;
    expect(headers).toMatchObject({
      authorization: "Bearer [REDACTED]",
      "x-external-user-id": "u-7",
      "x-external-user-email": "u7@example.com",
    });
  });

  it("a session token sends x-service-workspace-id", async () => {
    const session = createUploader({
      filesUrl: sim.filesUrl,
      sessionToken: sim.sessionToken,
      workspaceId: sim.workspaceId,
      pollIntervalMs: 5,
    });
    const bytes = patterned(2 * CHUNK);
    const result = await session.upload(bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    await expectStored(result.uploadId, bytes);
    const put = sim.control.requests().find((r) => r.method === "PUT" && r.path.includes(result.uploadId))!;
    expect(put.headers["x-service-workspace-id"]).toBe(sim.workspaceId);
    expect(put.headers["x-external-user-id"]).toBeUndefined();
  });

  it("a missing filesUrl or credentials is a local validation error", () => {
    expect(() => createUploader({ apiKey: "k", externalUserId: "u" })).toThrow(ValidationError);
    expect(() => createUploader({ filesUrl: sim.filesUrl })).toThrow(/apiKey/);
  });
});

describe("progress: bytes sent and acknowledged, never backwards, at least once per MiB or per chunk", () => {
  it("with 64 KiB chunks, a report per chunk", async () => {
    const reports: UploadProgress[] = [];
    const bytes = patterned(10 * CHUNK + 1);
    const result = await uploader.upload(bytes, {
      fileName: "a.pdf",
      contentType: "application/pdf",
      onProgress: (p) => reports.push(p),
    });
    checkReports(reports, bytes.length, CHUNK);
    expect(reports.every((r) => r.uploadId === result.uploadId)).toBe(true);
  });

  it("with 8 MiB chunks, a report at least every MiB, for a Blob and a stream", async () => {
    const big = await simulatorWithUploader({ maxChunkSize: 8 * 1024 * 1024 });
    try {
      const bytes = patterned(20 * 1024 * 1024 + 3);
      for (const kind of ["Blob", "ReadableStream", "Uint8Array"]) {
        const reports: UploadProgress[] = [];
        const { source, size } = SOURCE_KINDS[kind]!(bytes);
        const upload = startUpload(big.uploader, source, {
          fileName: "a.mp4",
          contentType: "video/mp4",
          ...(size === undefined ? {} : { size }),
        });
        upload.on("progress", (p) => reports.push(p));
        await upload.done;
        checkReports(reports, bytes.length, 1024 * 1024);
        expect(upload.progress).toEqual(reports.at(-1));
      }
    } finally {
      await big.sim.close();
    }
  });
});

function checkReports(reports: UploadProgress[], total: number, maxGap: number) {
  expect(reports.length).toBeGreaterThan(0);
  let previous = { bytesSent: 0, bytesAcknowledged: 0 };
  for (const report of reports) {
    expect(report.bytesSent).toBeGreaterThanOrEqual(previous.bytesSent);
    expect(report.bytesAcknowledged).toBeGreaterThanOrEqual(previous.bytesAcknowledged);
    expect(report.bytesSent).toBeGreaterThanOrEqual(report.bytesAcknowledged);
    expect(report.bytesSent - previous.bytesSent).toBeLessThanOrEqual(maxGap);
    expect(report.totalBytes).toBe(total);
    previous = report;
  }
  expect(reports.at(-1)).toMatchObject({ bytesSent: total, bytesAcknowledged: total });
}

describe("a stream source is read at most chunk + readAheadBytes past the bytes the service confirmed", () => {
  for (const streamRequestBodies of [true, false]) {
    it(`${streamRequestBodies ? "streamed" : "whole"} chunk bodies`, async () => {
      const readAheadBytes = 16 * 1024;
      const piece = 4096;
      const bounded = createUploader({
        filesUrl: sim.filesUrl,
        apiKey: sim.apiKey,
        externalUserId: sim.externalUserId,
        readAheadBytes,
        streamRequestBodies,
      });
      const bytes = patterned(9 * CHUNK + 123);
      let read = 0;
      let acknowledged = 0;
      let furthestAhead = 0;
      // A stream that hands out one piece per read and queues nothing, so `read` is what was taken.
      const stream = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (read === bytes.length) return controller.close();
            const next = bytes.slice(read, Math.min(bytes.length, read + piece));
            read += next.length;
            furthestAhead = Math.max(furthestAhead, read - acknowledged);
            controller.enqueue(next);
          },
        },
        { highWaterMark: 0 },
      );
      const result = await bounded.upload(fromStream(stream), {
        fileName: "a.mp4",
        contentType: "video/mp4",
        size: bytes.length,
        waitForCompletion: false,
        onProgress: (p) => {
          acknowledged = p.bytesAcknowledged;
        },
      });
      expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
      // The one piece that crosses the bound is taken from the stream but not copied until needed.
      expect(furthestAhead).toBeLessThanOrEqual(CHUNK + readAheadBytes + piece);
      // With whole-chunk bodies the next chunk's first bytes are surely read before its PUT starts.
      if (!streamRequestBodies) expect(furthestAhead).toBeGreaterThan(CHUNK);
    });
  }

  it("readAheadBytes must be a whole number of bytes", () => {
    const credentials = { apiKey: sim.apiKey, externalUserId: sim.externalUserId };
    expect(() => createUploader({ filesUrl: sim.filesUrl, ...credentials, readAheadBytes: -1 })).toThrow(
      /readAheadBytes/,
    );
    expect(() => createUploader({ filesUrl: sim.filesUrl, ...credentials, readAheadBytes: 1.5 })).toThrow(
      ValidationError,
    );
  });
});
