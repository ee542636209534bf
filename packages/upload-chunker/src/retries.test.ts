import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NotFoundError, type PromoReviewError, ServerError } from "@promo-review/errors";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readingOf } from "../../../testing/simulator.ts";
import {
  addFailingChunkFaults,
  chunkPuts,
  expectSendsExplainedByFailures,
  methodOf,
  patterned,
  sha256,
  simulatorWithUploader,
  uploaderFor,
} from "../test/support/uploads.js";
import {
  type ChunkEvent,
  createUploader,
  fromStream,
  memoryResumeStore,
  type RetryEvent,
  startUpload,
  type Uploader,
  type UploaderOptions,
  uploadStateOf,
} from "./index.js";
import { fileSource } from "./node.js";

const CHUNK = 64 * 1024;
let sim: Simulator;
let uploader: Uploader;

beforeAll(async () => {
  ({ sim, uploader } = await simulatorWithUploader({ maxChunkSize: CHUNK, seed: 42 }));
});
afterEach(() => {
  sim.control.clearFaults();
});
afterAll(() => sim.close());

const PUTS = "PUT /v1/uploads/*";

/** An uploader for the shared simulator with these options (a fetch wrapper, a retry policy...). */
function clientWith(options: Partial<UploaderOptions>): Uploader {
  return uploaderFor(sim, options);
}

describe("upload() tells its events to the callbacks it is given; startUpload's Upload emits the same", () => {
  it("a retried chunk: initiated, the retry, each chunk, in the same order either way", async () => {
    const bytes = patterned(3 * CHUNK, 5);
    const told = async (start: (events: string[]) => Promise<unknown>) => {
      sim.control.addFault({ route: PUTS, count: 1, kind: "status", status: 503 } as never);
      const events: string[] = [];
      await start(events);
      return events;
    };
    const options = { fileName: "a.pdf", contentType: "application/pdf" };
    const viaCallbacks = await told((events) =>
      uploader.upload(bytes, {
        ...options,
        onInitiated: () => events.push("initiated"),
        onChunk: (c) => events.push(`chunk ${c.start}`),
        onRetry: (r) => events.push(`retry ${r.start} ${r.attempt}`),
      }),
    );
    expect(viaCallbacks).toEqual([
      "initiated",
      "retry 0 1",
      "chunk 0",
      `chunk ${CHUNK}`,
      `chunk ${2 * CHUNK}`,
    ]);
    const viaEmitter = await told((events) => {
      const upload = startUpload(uploader, patterned(3 * CHUNK, 6), {
        ...options,
        onChunk: () => events.push("own onChunk"),
      });
      upload.on("initiated", () => events.push("initiated"));
      upload.on("chunk", (c) => events.push(`chunk ${c.start}`));
      upload.on("retry", (r) => events.push(`retry ${r.start} ${r.attempt}`));
      return upload.done;
    });
    // The caller's own callback is told first, then the listeners.
    expect(viaEmitter).toEqual([
      "initiated",
      "retry 0 1",
      "own onChunk",
      "chunk 0",
      "own onChunk",
      `chunk ${CHUNK}`,
      "own onChunk",
      `chunk ${2 * CHUNK}`,
    ]);
  });
});

describe("20% of chunk PUTs failing: 5xx, resets mid-body, 429 with Retry-After", () => {
  it("a 200 MiB stream still arrives intact, and no chunk is sent more often than its failures explain", async () => {
    const big = await simulatorWithUploader({ maxChunkSize: 1024 * 1024, seed: 7 });
    try {
      addFailingChunkFaults(big.sim, { resetAfterBytes: 300_000, seed: 100 });
      const size = 200 * 1024 * 1024;
      const hash = createHash("sha256");
      async function* source() {
        for (let at = 0; at < size; at += 256 * 1024) {
          const piece = randomBytes(Math.min(256 * 1024, size - at));
          hash.update(piece);
          yield new Uint8Array(piece.buffer, piece.byteOffset, piece.byteLength);
        }
      }
      const retries: RetryEvent[] = [];
      const upload = startUpload(big.uploader, fromStream(source()), {
        fileName: "film.mp4",
        contentType: "video/mp4",
        size,
      });
      upload.on("retry", (r) => retries.push(r));
      const result = await upload.done;
      expect(big.sim.control.upload(result.uploadId)).toMatchObject({
        status: "completed",
        size,
        sha256: hash.digest("hex"),
      });
      const failed = expectSendsExplainedByFailures(big.sim, result.uploadId, size, 1024 * 1024);
      expect(failed).toBe(retries.length);
      expect(result.retries).toBe(retries.length);
      // About a fifth of 200 first attempts fail (seeded); each fault kind occurred.
      expect(failed).toBeGreaterThan(20);
      const kinds = new Set(chunkPuts(big.sim, result.uploadId).map((p) => p.fault));
      expect(kinds).toEqual(new Set([undefined, "status", "reset", "rate-limit", "html-502"]));
    } finally {
      await big.sim.close();
    }
  });
});

describe("a file path (read buffers reused from chunk to chunk) survives failed attempts intact", () => {
  it("5xx, resets before and mid-body, on 12 chunks of 2 MiB", async () => {
    const big = await simulatorWithUploader({ maxChunkSize: 2 * 1024 * 1024, seed: 7 });
    const dir = await mkdtemp(join(tmpdir(), "upload-chunker-file-"));
    try {
      const bytes = randomBytes(12 * 2 * 1024 * 1024 - 5);
      const path = join(dir, "clip.mp4");
      await writeFile(path, bytes);
      for (const fault of [
        { kind: "status", status: 500, count: 2 },
        { kind: "reset", afterBytes: 1_500_000, count: 2 },
        { kind: "reset", count: 1 },
      ]) {
        big.sim.control.addFault({ route: PUTS, probability: 0.3, ...fault } as never);
      }
      const file = await fileSource(path);
      const result = await big.uploader.upload(file, { fileName: "clip.mp4", contentType: "video/mp4" });
      expect(big.sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
      expect(result.retries).toBeGreaterThan(0);
    } finally {
      await big.sim.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("each transient failure is retried from the chunk's start with the same range", () => {
  for (const fault of [
    { kind: "status", status: 500 },
    { kind: "status", status: 503, code: "SERVICE_ERROR" },
    { kind: "reset", afterBytes: 20_000 },
    { kind: "reset" },
    { kind: "html-502" },
    { kind: "rate-limit", retryAfterSeconds: 0 },
  ]) {
    it(JSON.stringify(fault), async () => {
      const bytes = patterned(3 * CHUNK, 3);
      sim.control.addFault({ route: PUTS, count: 1, ...fault } as never);
      const events: RetryEvent[] = [];
      const upload = startUpload(uploader, fromStream(new Blob([bytes as BlobPart]).stream()), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: bytes.length,
      });
      upload.on("retry", (e) => events.push(e));
      const result = await upload.done;
      expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
      expect(events.map((e) => [e.start, e.end, e.attempt])).toEqual([[0, CHUNK, 1]]);
      const puts = chunkPuts(sim, result.uploadId);
      expect(puts.map((p) => p.range)).toEqual([
        `bytes 0-${CHUNK - 1}/${bytes.length}`,
        `bytes 0-${CHUNK - 1}/${bytes.length}`,
        `bytes ${CHUNK}-${2 * CHUNK - 1}/${bytes.length}`,
        `bytes ${2 * CHUNK}-${3 * CHUNK - 1}/${bytes.length}`,
      ]);
      expect(puts[0]!.fault).toBe(fault.kind);
    });
  }

  it("a 429's Retry-After is the wait (not the backoff)", async () => {
    sim.control.addFault({ route: PUTS, kind: "rate-limit", retryAfterSeconds: 1, count: 1 });
    const events: RetryEvent[] = [];
    const upload = startUpload(uploader, patterned(10), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    upload.on("retry", (e) => events.push(e));
    await upload.done;
    expect(events.map((e) => [e.delayMs, e.error.code])).toEqual([[1000, "RATE_LIMITED"]]);
  });

  it("the attempt counter restarts when the service confirms progress", async () => {
    // Two failures before each of three chunks: 6 in all, never more than 2 in a row (limit 2).
    const strict = clientWith({
      retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 2 },
      pollIntervalMs: 5,
    });
    const bytes = patterned(3 * CHUNK, 5);
    const upload = startUpload(strict, bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    const attempts: number[] = [];
    let faults = 0;
    const addTwo = () => {
      if (faults++ < 3) sim.control.addFault({ route: PUTS, kind: "status", status: 502, count: 2 });
    };
    addTwo();
    upload.on("retry", (e) => attempts.push(e.attempt));
    upload.on("chunk", addTwo);
    const result = await upload.done;
    expect(attempts).toEqual([1, 2, 1, 2, 1, 2]);
    expect(result.retries).toBe(6);
    expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
  });
});

describe("a failure that will not heal ends with a typed error naming the upload and the offset", () => {
  it("5xx on every attempt after two chunks", async () => {
    const bytes = patterned(5 * CHUNK);
    const upload = startUpload(uploader, bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    upload.on("chunk", (c: ChunkEvent) => {
      if (c.end === 2 * CHUNK) sim.control.addFault({ route: PUTS, kind: "status", status: 500 });
    });
    const error = await upload.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    const state = uploadStateOf(error)!;
    expect(state).toEqual({
      type: "upload_state",
      uploadId: upload.uploadId,
      bytesAcknowledged: 2 * CHUNK,
      fileSize: bytes.length,
    });
    expect((error as Error).message).toContain(
      `Upload ${upload.uploadId} stopped at byte ${2 * CHUNK} of ${bytes.length}`,
    );
    expect((error as PromoReviewError).status).toBe(500);
    // 1 + the default limit of 5 retries, all of the same range.
    const failing = chunkPuts(sim, upload.uploadId!).filter((p) => p.status === 500);
    expect(failing.map((p) => p.range)).toEqual(
      Array(6).fill(`bytes ${2 * CHUNK}-${3 * CHUNK - 1}/${bytes.length}`),
    );

    // The error says enough to continue: resume from the offset it names.
    sim.control.clearFaults();
    const resumed = await uploader.resume(state.uploadId, bytes, {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    // Without receivedBytes in the status (docs/gaps.md row 7) a resume starts at 0 and the 409 moves it on.
    const statusGivesOffset = readingOf(sim, 7) !== "without-received-bytes";
    expect(resumed).toMatchObject({ status: "completed", resumedFrom: statusGivesOffset ? 2 * CHUNK : 0 });
    expect(sim.control.upload(state.uploadId).sha256).toBe(sha256(bytes));
  });

  it("a 404 is not retried", async () => {
    const error = await uploader
      .resume("00000000-0000-4000-8000-000000000000", patterned(10), {
        fileName: "a.pdf",
        contentType: "application/pdf",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(uploadStateOf(error)?.uploadId).toBe("00000000-0000-4000-8000-000000000000");
  });

  it("an error with no upload id yet is passed through unchanged", async () => {
    const wrongKey = createUploader({
      filesUrl: sim.filesUrl,
      apiKey: "sk_revoked_nope",
      externalUserId: "u",
    });
    const error = await wrongKey
      .upload(patterned(10), { fileName: "a.pdf", contentType: "application/pdf" })
      .catch((e: unknown) => e);
    expect((error as PromoReviewError).code).toBe("UNAUTHORIZED");
    expect(uploadStateOf(error)).toBeUndefined();
  });
});

describe("the service is the source of truth for the offset", () => {
  it("a chunk whose answer was lost is sent again and accepted as a repeat", async () => {
    let cut = 0;
    const losing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (methodOf(input, init) === "PUT" && cut++ === 1) {
        await response.arrayBuffer();
        throw Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNRESET" } });
      }
      return response;
    };
    const lossy = clientWith({
      fetch: losing,
      retry: { baseDelayMs: 1 },
      pollIntervalMs: 5,
    });
    const bytes = patterned(3 * CHUNK, 11);
    const result = await lossy.upload(bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
    expect(chunkPuts(sim, result.uploadId).map((p) => [p.range.split("/")[0], p.status])).toEqual([
      ["bytes 0-65535", 200],
      ["bytes 65536-131071", 200],
      ["bytes 65536-131071", 200],
      ["bytes 131072-196607", 200],
    ]);
  });

  it("without receivedBytes in the status, a resume starts at 0 and follows the 409's content_range_start", async () => {
    const bytes = patterned(6 * CHUNK, 13);
    const first = startUpload(uploader, bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    first.on("chunk", (c) => {
      if (c.end === 3 * CHUNK) first.abort();
    });
    await first.done.catch(() => {});
    const stripping: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (methodOf(input, init) !== "GET") return response;
      const { receivedBytes: _dropped, ...rest } = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify(rest), { status: response.status, headers: response.headers });
    };
    const blind = clientWith({
      fetch: stripping,
      pollIntervalMs: 5,
    });
    // Half-size chunks: the first PUT is not a repeat of a stored range, so the service says where it is.
    const result = await blind.resume(first.uploadId!, bytes, {
      fileName: "a.pdf",
      contentType: "application/pdf",
      chunkSize: CHUNK / 2,
    });
    expect(result.resumedFrom).toBe(0);
    expect(sim.control.upload(first.uploadId!).sha256).toBe(sha256(bytes));
    const after = chunkPuts(sim, first.uploadId!)
      .slice(3)
      .map((p) => [p.range.split("/")[0], p.status]);
    expect(after).toEqual([
      ["bytes 0-32767", 409],
      ["bytes 196608-229375", 200],
      ["bytes 229376-262143", 200],
      ["bytes 262144-294911", 200],
      ["bytes 294912-327679", 200],
      ["bytes 327680-360447", 200],
      ["bytes 360448-393215", 200],
    ]);
  });

  it("a 409 without details is resolved by reading the status, then retried", async () => {
    let answered = false;
    const busy: typeof fetch = async (input, init) => {
      if (methodOf(input, init) === "PUT" && !answered) {
        answered = true;
        return new Response(
          JSON.stringify({
            error: { code: "CONFLICT", message: "Another chunk is being received" },
            correlationId: "c",
          }),
          { status: 409, headers: { "content-type": "application/json" } },
        );
      }
      return fetch(input, init);
    };
    const client = clientWith({
      fetch: busy,
      retry: { baseDelayMs: 1 },
      pollIntervalMs: 5,
    });
    const bytes = patterned(2 * CHUNK, 17);
    const upload = startUpload(client, bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    const retries: RetryEvent[] = [];
    upload.on("retry", (r) => retries.push(r));
    const result = await upload.done;
    expect(retries.map((r) => [r.start, r.error.code])).toEqual([[0, "CONFLICT"]]);
    expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
  });

  it("a resume that does not know maxChunkSize starts at 8 MiB and follows the 413's max_chunk_size", async () => {
    const bytes = patterned(4 * CHUNK + 9, 19);
    const first = startUpload(uploader, bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    first.on("chunk", (c) => {
      if (c.end === CHUNK) first.abort();
    });
    await first.done.catch(() => {});
    // Another process: its own (empty) store.
    const other = clientWith({
      store: memoryResumeStore(),
      pollIntervalMs: 5,
    });
    const result = await other.resume(first.uploadId!, new Blob([bytes as BlobPart]), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    const statusGivesOffset = readingOf(sim, 7) !== "without-received-bytes";
    expect(result).toMatchObject({ status: "completed", resumedFrom: statusGivesOffset ? CHUNK : 0 });
    expect(sim.control.upload(first.uploadId!).sha256).toBe(sha256(bytes));
    const after = chunkPuts(sim, first.uploadId!).slice(1);
    expect(after[0]).toMatchObject({
      range: `bytes ${statusGivesOffset ? CHUNK : 0}-${bytes.length - 1}/${bytes.length}`,
      status: 413,
    });
    expect(after.slice(1).every((p) => p.status === 200)).toBe(true);
  });
});

describe("runtimes that cannot stream a request body", () => {
  it("a stream body refused before its first byte switches to whole-chunk bodies", async () => {
    let refused = 0;
    const http1Browser: typeof fetch = async (input, init) => {
      if (methodOf(input, init) === "PUT" && refused++ === 0) throw new TypeError("Failed to fetch");
      return fetch(input, init);
    };
    const client = clientWith({
      fetch: http1Browser,
      retry: { baseDelayMs: 1 },
      pollIntervalMs: 5,
    });
    const bytes = patterned(3 * CHUNK + 1, 23);
    for (const source of [bytes, new Blob([bytes as BlobPart])]) {
      refused = 0;
      const chunks: ChunkEvent[] = [];
      const upload = startUpload(client, source, { fileName: "a.pdf", contentType: "application/pdf" });
      upload.on("chunk", (c) => chunks.push(c));
      const result = await upload.done;
      expect(chunks.map((c) => c.streamed)).toEqual([false, false, false, false]);
      expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
    }
  });

  it("streamRequestBodies: false sends every source kind as whole chunks", async () => {
    const client = clientWith({
      streamRequestBodies: false,
      pollIntervalMs: 5,
    });
    const bytes = patterned(2 * CHUNK + 1, 29);
    const reports: number[] = [];
    const result = await client.upload(fromStream(new Blob([bytes as BlobPart]).stream()), {
      fileName: "a.pdf",
      contentType: "application/pdf",
      size: bytes.length,
      onProgress: (p) => reports.push(p.bytesSent),
    });
    expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
    expect(reports).toEqual([CHUNK, 2 * CHUNK, 2 * CHUNK + 1]);
  });
});

describe("a service that acknowledges chunks with 308 and never names its offset (profile 2: docs/gaps.md rows 7, 12)", () => {
  it("a 308 acknowledgement is an answer: no warning logged, afterResponse hooks see the status and no error", async () => {
    const events: { status?: number | undefined; code?: string | undefined }[] = [];
    const levels: string[] = [];
    const at = (level: string) => () => void levels.push(level);
    const other = await simulatorWithUploader(
      { maxChunkSize: 64 * 1024, profile: 2 },
      {
        hooks: { afterResponse: (e) => void events.push({ status: e.status, code: e.error?.code }) },
        logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") },
      },
    );
    try {
      expect(readingOf(other.sim, 12)).toBe("resume-308");
      const bytes = patterned(2 * 64 * 1024 + 5, 3);
      const result = await other.uploader.upload(bytes, {
        fileName: "a.pdf",
        contentType: "application/pdf",
      });
      expect(other.sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
      expect(events.filter((e) => e.status === 308)).toEqual([{ status: 308 }, { status: 308 }]);
      expect(levels.filter((level) => level !== "debug")).toEqual([]);
    } finally {
      await other.sim.close();
    }
  });
  it("stores the file intact, and a 409 naming no offset is retried on the same range", async () => {
    let answered = false;
    // A 409 with no details, as a busy service might answer; its status read names no offset either.
    const busy: typeof fetch = async (input, init) => {
      if (methodOf(input, init) === "PUT" && !answered) {
        answered = true;
        const error = {
          error: { code: "CONFLICT", message: "Another chunk is being received" },
          correlationId: "c",
        };
        return new Response(JSON.stringify(error), {
          status: 409,
          headers: { "content-type": "application/json" },
        });
      }
      return fetch(input, init);
    };
    const other = await simulatorWithUploader(
      { maxChunkSize: 64 * 1024, profile: 2 },
      { retry: { baseDelayMs: 1 }, fetch: busy },
    );
    try {
      expect([readingOf(other.sim, 7), readingOf(other.sim, 12)]).toEqual([
        "without-received-bytes",
        "resume-308",
      ]);
      const bytes = patterned(3 * 64 * 1024 + 11, 23);
      const result = await other.uploader.upload(bytes, {
        fileName: "a.pdf",
        contentType: "application/pdf",
      });
      expect(result.status).toBe("completed");
      expect(other.sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
      const answers = other.sim.control
        .requests()
        .filter((r) => r.method === "PUT")
        .map((r) => [r.headers["content-range"]?.split("/")[0], r.status]);
      expect(answers).toEqual([
        ["bytes 0-65535", 308],
        ["bytes 65536-131071", 308],
        ["bytes 131072-196607", 308],
        ["bytes 196608-196618", 201],
      ]);
    } finally {
      await other.sim.close();
    }
  });
});
