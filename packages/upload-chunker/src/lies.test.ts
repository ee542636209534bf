import { PromoReviewError } from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import "../../../testing/fast-check-seed.ts";
import {
  type LyingAnswer,
  type SeenRequest,
  someUuid,
  useLyingServer,
} from "../../../testing/lying-server.ts";
import { uploadStateOf } from "./failure.js";
import { startUpload } from "./started-upload.js";
import { fromStream } from "./stream-source.js";
import type { UploaderOptions } from "./types.js";
import { createUploader } from "./uploader.js";
import { DEFAULT_WAIT_TIMEOUT_MS } from "./wait.js";

const server = useLyingServer();
const CHUNK = 1024;
const SIZE = 5 * CHUNK;
const file = () => new Uint8Array(SIZE).map((_, i) => i % 251);
const id = someUuid();

const uploader = (options: Partial<UploaderOptions> = {}) =>
  createUploader({
    filesUrl: server().url,
    apiKey: "pk_test_lies",
    externalUserId: "user-1",
    retry: { baseDelayMs: 2, maxDelayMs: 40 },
    pollIntervalMs: 5,
    ...options,
  });

const pdf = { fileName: "flyer.pdf", contentType: "application/pdf" };

/** The exclusive end of the range a chunk PUT carried. */
const endOf = (req: SeenRequest) =>
  Number(/bytes \d+-(\d+)\//.exec(String(req.headers["content-range"]))![1]) + 1;

/**
 * A file service that answers truthfully unless a route is overridden: initiation 201, every chunk
 * stored (`receivedBytes` = its end), status `completed`.
 */
function files(
  lie: {
    initiate?: (req: SeenRequest) => LyingAnswer;
    put?: (req: SeenRequest, index: number) => LyingAnswer;
    status?: (req: SeenRequest) => LyingAnswer;
  } = {},
) {
  let puts = 0;
  server().answer((req) => {
    if (req.method === "POST") {
      return (
        lie.initiate?.(req) ?? {
          status: 201,
          json: { uploadId: id, uploadUrl: `/v1/uploads/${id}`, maxChunkSize: CHUNK },
        }
      );
    }
    if (req.method === "PUT") return lie.put?.(req, puts++) ?? { json: { receivedBytes: endOf(req) } };
    return lie.status?.(req) ?? { json: { uploadId: id, status: "completed", fileSize: SIZE } };
  });
}

/** A 409 saying the service expects the next chunk at byte `offset`. */
const expecting = (offset: number): LyingAnswer => ({
  status: 409,
  json: {
    error: {
      code: "CONFLICT",
      message: "offset",
      details: [
        { type: "constraint_violation", constraint: "content_range_start", limit: offset, actual: CHUNK },
      ],
    },
  },
});

const methods = () => server().seen.map((r) => r.method);

describe("the initiation answer must hold uploadId (uuid), uploadUrl (string) and maxChunkSize (integer when given)", () => {
  it("takes the spec's default of 50 MB when maxChunkSize is left out", async () => {
    files({ initiate: () => ({ status: 201, json: { uploadId: id, uploadUrl: `/v1/uploads/${id}` } }) });
    const result = await uploader().upload(file(), pdf);
    expect(result).toMatchObject({ uploadId: id, status: "completed", fileSize: SIZE });
    expect(methods().filter((m) => m === "PUT")).toHaveLength(1);
  });

  it.each([
    ["an empty body", { status: 201, text: "" }, "(body)"],
    ["null", { status: 201, json: null }, "(body)"],
    ["{}", { status: 201, json: {} }, "uploadId"],
    [
      "uploadId ..",
      { json: { uploadId: "..", uploadUrl: "/v1/uploads/..", maxChunkSize: CHUNK } },
      "uploadId",
    ],
    ["no uploadUrl", { json: { uploadId: id, maxChunkSize: CHUNK } }, "uploadUrl"],
    [
      "an uploadUrl that climbs",
      { json: { uploadId: id, uploadUrl: "/v1/uploads/%2E%2E", maxChunkSize: 9 } },
      "uploadUrl",
    ],
    [
      "maxChunkSize 0",
      { json: { uploadId: id, uploadUrl: `/v1/uploads/${id}`, maxChunkSize: 0 } },
      "maxChunkSize",
    ],
    [
      "maxChunkSize as text",
      { json: { uploadId: id, uploadUrl: `/v1/uploads/${id}`, maxChunkSize: "1" } },
      "maxChunkSize",
    ],
  ] as const)("refuses %s with a typed UNEXPECTED_RESPONSE, and sends no byte", async (_, answer, field) => {
    files({ initiate: () => answer });
    const correlationId = someUuid();
    const error = await uploader()
      .upload(file(), { ...pdf, correlationId })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: "UnexpectedResponseError",
      code: "UNEXPECTED_RESPONSE",
      operation: "uploads.initiate",
      field,
      correlationId,
    });
    expect(methods()).toEqual(["POST"]);
  });

  it("accepts any 2xx, unknown fields, and a chunk answer of 204, of 308, or with a body it does not know", async () => {
    files({
      initiate: () => ({
        status: 200,
        json: { uploadId: id, uploadUrl: `/v1/uploads/${id}`, maxChunkSize: CHUNK, x: 1 },
      }),
      put: (_, n) =>
        [{ status: 204 }, { status: 308, headers: { range: "bytes=0-2047" } }, { json: { ok: true } }][
          n % 3
        ]!,
    });
    const result = await uploader().upload(file(), pdf);
    expect(result).toMatchObject({ uploadId: id, status: "completed", fileSize: SIZE });
    expect(methods().filter((m) => m === "PUT")).toHaveLength(5);
  });
});

describe("whatever JSON answers the initiation, no upload resolves without a uuid uploadId", () => {
  it("is completed with a uuid id, or fails typed, never a TypeError (property)", async () => {
    const almost = fc.record(
      {
        uploadId: fc.oneof(fc.constant(id), fc.string(), fc.constant("..")),
        // Never a random string: one naming another host would send a request off this machine.
        uploadUrl: fc.oneof(
          fc.constantFrom(`/v1/uploads/${id}`, "", "/v1/uploads/..", "./%2e%2e/x"),
          fc.integer(),
        ),
        maxChunkSize: fc.oneof(fc.constant(CHUNK), fc.integer(), fc.double()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.jsonValue(), almost), async (json) => {
        files({ initiate: () => ({ status: 201, json }) });
        const outcome = await uploader()
          .upload(file(), pdf)
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        if ("result" in outcome) expect(outcome.result).toMatchObject({ uploadId: id, status: "completed" });
        else expect(outcome.error).toBeInstanceOf(PromoReviewError);
      }),
      { numRuns: 40 },
    );
  });
});

describe("every upload id from the caller is a uuid before it goes into a path: nothing is sent", () => {
  it.each([
    ["status", (u: ReturnType<typeof uploader>) => u.status("..")],
    ["waitForCompletion", (u: ReturnType<typeof uploader>) => u.waitForCompletion("../v1")],
    ["resume", (u: ReturnType<typeof uploader>) => u.resume("", file(), pdf)],
  ])("%s refuses it locally", async (_, call) => {
    await expect(call(uploader())).rejects.toMatchObject({ code: "VALIDATION_ERROR", local: true });
    expect(server().seen).toHaveLength(0);
  });
});

describe("completed only when the service acknowledged exactly the bytes sent", () => {
  it("refuses a chunk answer claiming bytes beyond those sent, after one chunk", async () => {
    files({ put: () => ({ json: { receivedBytes: SIZE, status: "completed" } }) });
    const error = await uploader()
      .upload(file(), pdf)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", field: "receivedBytes" });
    expect(uploadStateOf(error)).toMatchObject({ uploadId: id, bytesAcknowledged: 0 });
    expect(methods()).toEqual(["POST", "PUT"]);
  });

  it("refuses a 409 whose content_range_start is at the total when not all was sent", async () => {
    const conflict = expecting(SIZE);
    files({ put: (req, n) => (n === 1 ? conflict : { json: { receivedBytes: endOf(req) } }) });
    const error = await uploader()
      .upload(file(), pdf)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", field: "content_range_start" });
    expect(uploadStateOf(error)).toMatchObject({ bytesAcknowledged: CHUNK });
    expect(methods()).toEqual(["POST", "PUT", "PUT"]);
  });

  it("never resolves completed for a resumed upload whose status claims more bytes than the file holds", async () => {
    files({ status: () => ({ json: { uploadId: id, status: "uploading", receivedBytes: SIZE + 1 } }) });
    await expect(uploader().resume(id, file(), pdf)).rejects.toMatchObject({ code: "UNEXPECTED_RESPONSE" });
    expect(methods()).toEqual(["GET"]);
  });
});

describe("an offset that moves back and forth: bounded resyncs, each backed off", () => {
  it("ends after maxResyncs backward moves, with growing pauses, not thousands of PUTs", async () => {
    // Every other answer goes back to byte 0: the service never settles.
    files({ put: (req, n) => ({ json: { receivedBytes: n % 2 === 0 ? endOf(req) : 0 } }) });
    const upload = startUpload(uploader({ maxResyncs: 4 }), file(), pdf);
    const delays: number[] = [];
    upload.on("retry", (event) => delays.push(event.delayMs));
    const error = await upload.done.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE", field: "receivedBytes" });
    expect((error as Error).message).toMatch(/moved back 5 times/);
    expect(methods().filter((m) => m === "PUT")).toHaveLength(10);
    // Equal jitter over a doubling step: the 4th pause is at least twice the ceiling of the 1st.
    expect(delays).toHaveLength(4);
    expect(delays.every((d) => d > 0)).toBe(true);
    expect(delays[3]!).toBeGreaterThan(delays[0]!);
  });

  it("a 409 that keeps sending the upload back is bounded the same way", async () => {
    const back = expecting(0);
    files({ put: (req, n) => (n % 2 === 1 ? back : { json: { receivedBytes: endOf(req) } }) });
    const error = await uploader({ maxResyncs: 3 })
      .upload(file(), pdf)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNEXPECTED_RESPONSE" });
    expect(methods().filter((m) => m === "PUT")).toHaveLength(8);
  });
});

describe("the completion wait ends: a deadline by default, and a status outside the enum is refused", () => {
  it(`has a default deadline of ${DEFAULT_WAIT_TIMEOUT_MS} ms, and a status that stays uploading meets it`, async () => {
    expect(DEFAULT_WAIT_TIMEOUT_MS).toBe(600_000);
    // Only the clock is faked (timers and sockets stay real): the third poll happens "10 minutes later".
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const start = Date.now();
      files({
        status: () => {
          if (server().seen.length === 3) vi.setSystemTime(start + DEFAULT_WAIT_TIMEOUT_MS);
          return { json: { uploadId: id, status: "uploading" } };
        },
      });
      const error = await uploader()
        .waitForCompletion(id)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "TimeoutError", code: "TIMEOUT" });
      expect(server().seen).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes a shorter deadline when given", async () => {
    files({ status: () => ({ json: { uploadId: id, status: "uploading" } }) });
    const error = await uploader()
      .waitForCompletion(id, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "TimeoutError", code: "TIMEOUT" });
  });

  it.each([
    ["missing", { uploadId: id }, "status"],
    ["unknown", { uploadId: id, status: "done" }, "status"],
    ["of another upload", { uploadId: someUuid(), status: "completed" }, "uploadId"],
    ["with fileSize as text", { uploadId: id, status: "completed", fileSize: "5" }, "fileSize"],
  ])("a status %s is UNEXPECTED_RESPONSE", async (_, json, field) => {
    files({ status: () => ({ json }) });
    await expect(uploader().waitForCompletion(id)).rejects.toMatchObject({
      code: "UNEXPECTED_RESPONSE",
      operation: "uploads.status",
      field,
    });
  });

  it("after the last chunk, an upload whose status is never completed ends typed within waitTimeoutMs", async () => {
    files({ status: () => ({ json: { uploadId: id, status: "uploading" } }) });
    const error = await uploader()
      .upload(file(), { ...pdf, waitTimeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "TIMEOUT" });
    expect(uploadStateOf(error)).toMatchObject({ uploadId: id });
  });
});

describe("every source failure is a typed error with the original as cause", () => {
  it("a stream that errors before its first byte: SOURCE_ERROR, nothing sent", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.error(new Error("disk unplugged"));
      },
    });
    files();
    const error = await uploader()
      .upload(fromStream(stream), { ...pdf, size: SIZE })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SOURCE_ERROR", message: expect.stringMatching(/disk unplugged/) });
    expect((error as Error).cause).toMatchObject({ message: "disk unplugged" });
    expect(server().seen).toHaveLength(0);
  });

  it("a Blob whose bytes cannot be read after the first chunk: SOURCE_ERROR naming the upload", async () => {
    /** A part of the file whose bytes are gone (the disk failed). */
    class UnreadablePart extends Blob {
      readonly #size: number;
      constructor(size: number) {
        super([]);
        this.#size = size;
      }
      override get size() {
        return this.#size;
      }
      override slice(): Blob {
        return this;
      }
      override arrayBuffer(): Promise<ArrayBuffer> {
        return Promise.reject(new Error("EIO: read failed"));
      }
    }
    class BrokenBlob extends Blob {
      override slice(start?: number, end?: number, type?: string): Blob {
        const part = super.slice(start, end, type);
        return (start ?? 0) < CHUNK ? part : new UnreadablePart(part.size);
      }
    }
    files();
    const error = await uploader({ streamRequestBodies: true })
      .upload(new BrokenBlob([file()]), pdf)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SOURCE_ERROR", message: expect.stringMatching(/EIO/) });
    expect(uploadStateOf(error)).toMatchObject({ uploadId: id, bytesAcknowledged: CHUNK });
  });
});
