import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useSimulator } from "../../../testing/simulator.ts";
import { call, initiate, mainHeaders, putChunk, waitFor } from "../test/support/api.js";
import { parseContentRange } from "./content-range.js";
import {
  DOCUMENT_LIMIT,
  formatOfContentType,
  formatOfFileName,
  MEDIA_LIMIT,
  PDF_IMAGE_LIMIT,
} from "./formats.js";
import { startSimulator } from "./index.js";

const sim = useSimulator(startSimulator, { seed: 21, maxChunkSize: 1024, uploadProcessingDelayMs: 150 });

const status = (uploadId: string) =>
  call(`${sim().filesUrl}/v1/uploads/${uploadId}`, { headers: mainHeaders(sim()) });

describe("Upload initiation: fileName, fileSize, contentType; response uploadId, relative uploadUrl, maxChunkSize", () => {
  it("answers 201 with the chunk URL and the configured maxChunkSize", async () => {
    const res = await initiate(sim(), 10);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      uploadId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      uploadUrl: `/v1/uploads/${res.body.uploadId}`,
      maxChunkSize: 1024,
      correlationId: expect.any(String),
    });
  });

  it("defaults maxChunkSize to 50 MiB", async () => {
    const other = await startSimulator();
    try {
      expect((await initiate(other, 1)).body.maxChunkSize).toBe(52_428_800);
    } finally {
      await other.close();
    }
  });

  it("rejects missing or malformed fields with field errors", async () => {
    const res = await call(`${sim().filesUrl}/v1/uploads`, {
      method: "POST",
      headers: mainHeaders(sim()),
      body: JSON.stringify({ fileName: "", fileSize: 1.5, contentType: "application/x-unknown" }),
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      "fileName",
      "fileSize",
      "contentType",
    ]);
    const empty = await call(`${sim().filesUrl}/v1/uploads`, {
      method: "POST",
      headers: mainHeaders(sim()),
      body: "{}",
    });
    expect(empty.body.error.details.map((d: { field: string }) => d.field)).toContain("contentType");
  });
});

describe("Limits: file size per format (PDF and images 30 MB, video and audio 2 GB, documents 10 MB) -> PAYLOAD_TOO_LARGE", () => {
  it.each([
    ["application/pdf", PDF_IMAGE_LIMIT],
    ["image/png", PDF_IMAGE_LIMIT],
    ["video/mp4", MEDIA_LIMIT],
    ["audio/mpeg", MEDIA_LIMIT],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", DOCUMENT_LIMIT],
    ["text/plain; charset=utf-8", DOCUMENT_LIMIT],
  ])("%s: accepts exactly the limit, rejects one byte more with 413", async (contentType, limit) => {
    expect((await initiate(sim(), limit, contentType)).status).toBe(201);
    const res = await initiate(sim(), limit + 1, contentType);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(res.body.error.details).toEqual([
      { type: "constraint_violation", constraint: "max_file_size", limit, actual: limit + 1 },
    ]);
  });

  it("maps formats by content type and file extension", () => {
    expect(formatOfContentType("application/msword")?.format).toBe("document");
    expect(formatOfContentType("application/vnd.oasis.opendocument.text")?.format).toBe("document");
    expect(formatOfContentType("application/zip")).toBeUndefined();
    expect(formatOfFileName("a.MP3")).toBe("audio");
    expect(formatOfFileName("noext")).toBeUndefined();
    for (const name of ["a.constructor", "a.__proto__", "a.valueOf", "a.hasOwnProperty"])
      expect(formatOfFileName(name), name).toBeUndefined();
  });
});

describe("Behaviour 5: a missing or malformed Content-Range gives VALIDATION_ERROR", () => {
  it("parses exactly 'bytes <start>-<end>/<total or *>' (property)", () => {
    fc.assert(
      fc.property(fc.nat(1e9), fc.nat(1e6), fc.option(fc.nat(1e6)), (start, length, extra) => {
        const end = start + length;
        const total = extra === null ? "*" : String(end + 1 + extra);
        expect(parseContentRange(`bytes ${start}-${end}/${total}`)).toEqual({
          start,
          end,
          total: total === "*" ? undefined : Number(total),
        });
      }),
    );
    fc.assert(
      fc.property(fc.string(), (junk) => {
        const parsed = parseContentRange(junk);
        if (typeof parsed !== "string") expect(junk).toMatch(/^bytes \d+-\d+\/(\d+|\*)$/);
      }),
    );
    expect(typeof parseContentRange("bytes 5-4/10")).toBe("string");
    expect(typeof parseContentRange("bytes 0-10/10")).toBe("string");
    expect(typeof parseContentRange(undefined)).toBe("string");
  });

  it.each([undefined, "", "bytes=0-9/10", "bytes 0-9", "items 0-9/10", "bytes 9-0/10"])(
    "answers 400 with a field_error on Content-Range for %j",
    async (range) => {
      const { body } = await initiate(sim(), 10);
      const res = await putChunk(sim(), body.uploadId, range, Buffer.alloc(10));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details[0]).toMatchObject({ type: "field_error", field: "Content-Range" });
    },
  );

  it("rejects a total that disagrees with the declared fileSize, a range past it, and a body of the wrong length", async () => {
    const { body } = await initiate(sim(), 10);
    for (const [range, bytes] of [
      ["bytes 0-9/11", 10],
      ["bytes 0-10/*", 11],
      ["bytes 0-4/10", 4],
    ] as const) {
      const res = await putChunk(sim(), body.uploadId, range, Buffer.alloc(bytes));
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe("Content-Range");
    }
    expect(sim().control.upload(body.uploadId).receivedBytes).toBe(0);
  });
});

describe("Limits: chunk size at most maxChunkSize; the last chunk may be smaller", () => {
  it("answers 413 with constraint max_chunk_size for a larger chunk", async () => {
    const { body } = await initiate(sim(), 2000);
    const res = await putChunk(sim(), body.uploadId, "bytes 0-1024/2000", Buffer.alloc(1025));
    expect(res.status).toBe(413);
    expect(res.body.error.details).toEqual([
      { type: "constraint_violation", constraint: "max_chunk_size", limit: 1024, actual: 1025 },
    ]);
  });
});

describe("Chunks: in order and contiguous, repeats idempotent, bytes streamed and hashed", () => {
  it("stores every byte and reports the SHA-256 of the stored bytes", async () => {
    const data = Buffer.from(Array.from({ length: 2500 }, (_, i) => (i * 7) % 256));
    const { body } = await initiate(sim(), data.length);
    const offsets = [0, 1024, 2048];
    for (const start of offsets) {
      const end = Math.min(start + 1024, data.length) - 1;
      const res = await putChunk(
        sim(),
        body.uploadId,
        `bytes ${start}-${end}/*`,
        data.subarray(start, end + 1),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ uploadId: body.uploadId, receivedBytes: end + 1 });
    }
    const view = sim().control.upload(body.uploadId);
    expect(view.size).toBe(2500);
    expect(view.sha256).toBe(createHash("sha256").update(data).digest("hex"));
  });

  it("answers 409 CONFLICT with content_range_start for a gap or an overlap", async () => {
    const { body } = await initiate(sim(), 30);
    expect((await putChunk(sim(), body.uploadId, "bytes 0-9/30", Buffer.alloc(10))).status).toBe(200);
    for (const [range, start] of [
      ["bytes 20-29/30", 20],
      ["bytes 5-14/30", 5],
      ["bytes 0-4/30", 0],
    ] as const) {
      const res = await putChunk(
        sim(),
        body.uploadId,
        range,
        Buffer.alloc(10 - (range === "bytes 0-4/30" ? 5 : 0)),
      );
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("CONFLICT");
      expect(res.body.error.details).toEqual([
        { type: "constraint_violation", constraint: "content_range_start", limit: 10, actual: start },
      ]);
    }
  });

  it("accepts a repeat of an already received range without rewriting", async () => {
    const { body } = await initiate(sim(), 20);
    await putChunk(sim(), body.uploadId, "bytes 0-9/20", Buffer.alloc(10, 1));
    const before = sim().control.upload(body.uploadId).sha256;
    const res = await putChunk(sim(), body.uploadId, "bytes 0-9/20", Buffer.alloc(10, 2));
    expect(res.status).toBe(200);
    expect(res.body.receivedBytes).toBe(10);
    expect(sim().control.upload(body.uploadId).sha256).toBe(before);
  });

  it("answers 404 NOT_FOUND for an unknown upload", async () => {
    const res = await putChunk(sim(), "00000000-0000-4000-8000-000000000000", "bytes 0-0/1", Buffer.alloc(1));
    expect(res.status).toBe(404);
    expect((await status("nope")).body.error.code).toBe("NOT_FOUND");
  });

  it("refuses a second chunk while one is being received (409), and commits nothing from a cut-off chunk", async () => {
    const { body } = await initiate(sim(), 1000);
    const { request } = await import("node:http");
    const url = new URL(`${sim().filesUrl}/v1/uploads/${body.uploadId}`);
    const req = request(url, {
      method: "PUT",
      headers: { ...mainHeaders(sim()), "Content-Range": "bytes 0-999/1000", "Content-Length": "1000" },
    });
    req.on("error", () => {});
    req.write(Buffer.alloc(100));
    await waitFor(() => sim().control.upload(body.uploadId).receiving);
    const second = await putChunk(sim(), body.uploadId, "bytes 0-999/1000", Buffer.alloc(1000));
    expect(second.status).toBe(409);
    req.destroy();
    await waitFor(
      async () => (await putChunk(sim(), body.uploadId, "bytes 0-9/1000", Buffer.alloc(10))).status === 200,
    );
    expect(sim().control.upload(body.uploadId).receivedBytes).toBe(10);
  });
});

describe("Upload status: pending -> uploading -> completed after the processing delay", () => {
  it("moves through the states, receivedBytes telling where to resume", async () => {
    const { body } = await initiate(sim(), 20);
    let res = await status(body.uploadId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      uploadId: body.uploadId,
      status: "pending",
      fileName: "file.pdf",
      fileSize: 20,
      receivedBytes: 0,
    });
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();
    await putChunk(sim(), body.uploadId, "bytes 0-9/20", Buffer.alloc(10));
    expect((await status(body.uploadId)).body).toMatchObject({ status: "uploading", receivedBytes: 10 });
    const last = await putChunk(sim(), body.uploadId, "bytes 10-19/20", Buffer.alloc(10));
    expect(last.body.status).toBe("uploading");
    res = await status(body.uploadId);
    expect(res.body.status).toBe("uploading");
    await waitFor(async () => (await status(body.uploadId)).body.status === "completed");
  });

  it("ends failed when processing fails (a file named with fail-processing), and creation refuses it", async () => {
    const { body } = await initiate(sim(), 4, "application/pdf", "scan-fail-processing.pdf");
    await putChunk(sim(), body.uploadId, "bytes 0-3/4", Buffer.from("%PDF"));
    await waitFor(async () => (await status(body.uploadId)).body.status === "failed");
    const created = await call(`${sim().baseUrl}/v1/promotions`, {
      method: "POST",
      headers: mainHeaders(sim()),
      body: JSON.stringify({
        promotionName: "Failed upload",
        productIds: [sim().reference.products[0]!.id],
        channelIds: [sim().reference.channels[0]!.id],
        jurisdictionId: sim().reference.jurisdictions[0]!.id,
        fileFormat: "pdf",
        uploadIds: [body.uploadId],
      }),
    });
    expect(created.status).toBe(400);
    expect(created.body.error.details).toContainEqual({
      type: "field_error",
      field: "uploadIds.0",
      message: expect.stringContaining("failed processing"),
    });
  });

  it("is not rate limited (chunk PUT and status)", async () => {
    const limited = await startSimulator({ mainApiLimit: 2, rateLimitWindowMs: 60_000 });
    try {
      const { body } = await initiate(limited, 10);
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          call(`${limited.filesUrl}/v1/uploads/${body.uploadId}`, { headers: mainHeaders(limited) }),
        ),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
    } finally {
      await limited.close();
    }
  });
});
