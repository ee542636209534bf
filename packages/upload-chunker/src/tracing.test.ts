/**
 * OpenTelemetry (issue 26): an upload is one `uploads.upload` span whose requests are its children,
 * with an event per chunk attempt, per resume and per completion poll, and one throughput point per
 * completed upload; never a secret, an upload token or a file name; nothing at all without a provider.
 * Real HTTP against the simulator, recorded by OpenTelemetry's own SDK (testing/otel.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createHttpClient, type HttpClient, type RequestOptions } from "@promo-review/http";
import { openTelemetry } from "@promo-review/opentelemetry";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { insideActiveSpan, type RecordingTelemetry, recordingTelemetry } from "../../../testing/otel.ts";
import { readingOf } from "../../../testing/simulator.ts";
import {
  chunkPuts,
  methodOf,
  patterned,
  simulatorWithUploader,
  uploaderFor,
} from "../test/support/uploads.js";
import {
  createUploader,
  memoryResumeStore,
  startUpload,
  type Uploader,
  type UploaderOptions,
} from "./index.js";
import { UPLOAD_CHUNKER_VERSION } from "./version.js";

const CHUNK = 64 * 1024;
const SIZE = 5 * CHUNK + 1000; // six chunks, the last one short
const INTERNAL = 0;
const CLIENT = 2;
let sim: Simulator;
let otel: RecordingTelemetry;

beforeAll(async () => {
  // Processing takes a few polls, so phase 3 is seen.
  ({ sim } = await simulatorWithUploader({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 40, seed: 26 }));
  otel = recordingTelemetry();
});
afterEach(() => {
  sim.control.clearFaults();
  otel.reset();
});
afterAll(async () => {
  await otel.shutdown();
  await sim.close();
});

/** An uploader for the shared simulator reporting to the recording providers. */
function tracedUploader(options: Partial<UploaderOptions> = {}): Uploader {
  return uploaderFor(sim, {
    telemetry: openTelemetry({ tracerProvider: otel.tracerProvider, meterProvider: otel.meterProvider }),
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

/** A file of `size` patterned bytes (a `File`, so the memory store can fingerprint it again). */
function fileOf(size = SIZE, seed = 1): File {
  return new File([patterned(size, seed) as BlobPart], "clip.mp4", {
    type: "video/mp4",
    lastModified: 1_700_000_000_000,
  });
}

/** The one `uploads.upload` span recorded. */
function uploadSpan(): ReadableSpan {
  const spans = otel.spansNamed("uploads.upload");
  expect(spans).toHaveLength(1);
  return spans[0]!;
}

/** The CLIENT spans under `span`, in the order they started. */
function requestsUnder(span: ReadableSpan): ReadableSpan[] {
  const at = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];
  return otel.childrenOf(span).sort((a, b) => at(a) - at(b));
}

/** The span's events named `name`, as their attributes. */
function eventsOf(span: ReadableSpan, name: string): Record<string, unknown>[] {
  return span.events.filter((e) => e.name === name).map((e) => ({ ...e.attributes }));
}

/** A chunk event's attributes as the test writes them: range `[start, end)`. */
function chunk(start: number, end: number, attempt: number, outcome: string, errorType?: string) {
  return {
    "promo_review.upload.range_start": start,
    "promo_review.upload.range_end": end - 1,
    "promo_review.upload.bytes": end - start,
    "promo_review.upload.attempt": attempt,
    "promo_review.upload.outcome": outcome,
    ...(errorType === undefined ? {} : { "error.type": errorType }),
  };
}

/** Every chunk's range of a file of `size` from `from`, as `[start, end)`. */
function rangesOf(size: number, from = 0): [number, number][] {
  const ranges: [number, number][] = [];
  for (let at = from; at < size; at += CHUNK) ranges.push([at, Math.min(size, at + CHUNK)]);
  return ranges;
}

/** Whether the status read gives `receivedBytes` (docs/gaps.md row 7; a profile may leave it out). */
function statusGivesOffset(): boolean {
  return readingOf(sim, 7) !== "without-received-bytes";
}

describe("uploads.upload: one INTERNAL operation span per upload", () => {
  it("carries the upload id, size, chunk size, content type and correlation id; parented on the caller's span", async () => {
    const uploader = tracedUploader();
    const result = await insideActiveSpan(otel.tracerProvider, "caller", () =>
      uploader.upload(fileOf(), { contentType: "video/mp4; codecs=avc1" }),
    );
    const span = uploadSpan();
    const caller = otel.spansNamed("caller")[0]!;
    expect(span.kind).toBe(INTERNAL);
    expect(span.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(span.instrumentationScope).toMatchObject({
      name: "@promo-review/upload-chunker",
      version: UPLOAD_CHUNKER_VERSION,
    });
    expect(span.attributes).toEqual({
      "promo_review.upload_id": result.uploadId,
      "promo_review.upload.file_size": SIZE,
      "promo_review.upload.chunk_size": CHUNK,
      // The MIME type alone: parameters could carry anything, a name included.
      "promo_review.upload.content_type": "video/mp4",
      "promo_review.upload.format": "video",
      "promo_review.correlation_id": result.correlationId,
    });
    expect(span.status.code).toBe(0); // UNSET: it succeeded
  });

  it("parent sets the parent explicitly (the facade's flows pass theirs; no context manager needed)", async () => {
    const telemetry = openTelemetry({ tracerProvider: otel.tracerProvider });
    const uploader = tracedUploader({ telemetry });
    const source = { name: "a-flow", version: "1" };
    const flow = telemetry.operationStarted?.({ name: "a flow", source, redact: (text) => text });
    await uploader.upload(fileOf(), { contentType: "video/mp4", parent: flow });
    telemetry.operationEnded?.(flow!, {});
    const [parent] = otel.spansNamed("a flow");
    expect(uploadSpan().parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
    expect(uploadSpan().spanContext().traceId).toBe(parent!.spanContext().traceId);
  });

  it("ends with status ERROR and error.type, and still names the upload, when a chunk fails for good", async () => {
    const uploader = tracedUploader({ retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 5 } });
    const upload = startUpload(uploader, fileOf(), {});
    upload.on("chunk", (c) => {
      // From the third chunk on, every PUT is refused: one retry, then the upload stops.
      if (c.end === 2 * CHUNK)
        sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 503 });
    });
    const error = await upload.done.then(
      () => ({ code: "(it completed)" }),
      (e: { code: string }) => e,
    );
    const span = uploadSpan();
    expect(span.status.code).toBe(2); // ERROR
    expect(span.attributes["error.type"]).toBe(error.code);
    expect(span.attributes["promo_review.upload_id"]).toBe(upload.uploadId);
    expect(eventsOf(span, "promo_review.upload.chunk").slice(-2)).toEqual([
      chunk(2 * CHUNK, 3 * CHUNK, 1, "retried", error.code),
      chunk(2 * CHUNK, 3 * CHUNK, 2, "failed", error.code),
    ]);
  });

  it("a check that fails before anything is sent is an ERROR span with VALIDATION_ERROR, and no id", async () => {
    const uploader = tracedUploader();
    await expect(
      uploader.upload(new Uint8Array(0), { fileName: "x.pdf", contentType: "application/pdf" }),
    ).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    const span = uploadSpan();
    expect(span.attributes["error.type"]).toBe("VALIDATION_ERROR");
    expect(span.attributes["promo_review.upload_id"]).toBeUndefined();
  });
});

describe("its requests: the initiation, each chunk PUT and each poll name the operation and the spec's template", () => {
  it("the span tree: under the upload's span, one CLIENT span per request, named by the spec's template", async () => {
    const result = await tracedUploader().upload(fileOf(), {});
    const span = uploadSpan();
    const requests = requestsUnder(span);
    const polls = eventsOf(span, "promo_review.upload.poll").length;
    expect(requests.map((r) => r.name)).toEqual([
      "POST /v1/uploads",
      ...rangesOf(SIZE).map(() => "PUT /v1/uploads/{uploadId}"),
      ...Array.from({ length: polls }, () => "GET /v1/uploads/{uploadId}"),
    ]);
    expect(requests.every((r) => r.kind === CLIENT)).toBe(true);
    const put = requests[1]!;
    expect(put.attributes).toMatchObject({
      "http.request.method": "PUT",
      "url.template": "/v1/uploads/{uploadId}",
      "url.full": `${sim.filesUrl}/v1/uploads/${result.uploadId}`,
    });
    // The whole trace is the caller's: no span of this upload outside the tree.
    expect(otel.spans()).toHaveLength(1 + requests.length);
  });

  it("POST /v1/uploads, then PUT and GET /v1/uploads/{uploadId}, each given the upload's operation", async () => {
    const sent: { method: string; urlTemplate: string | undefined; parent: unknown }[] = [];
    const telemetry = openTelemetry({ tracerProvider: otel.tracerProvider });
    const real = createHttpClient({
      baseUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
      telemetry,
    });
    const http: HttpClient = {
      ...real,
      request(path: string, options: RequestOptions = {}) {
        sent.push({
          method: options.method ?? "GET",
          urlTemplate: options.urlTemplate,
          parent: options.parent,
        });
        return real.request(path, options);
      },
    };
    const uploader = createUploader({ http, telemetry, pollIntervalMs: 5 });
    await uploader.upload(fileOf(), {});
    const span = uploadSpan();
    const polls = eventsOf(span, "promo_review.upload.poll").length;
    expect(sent.map(({ method, urlTemplate }) => `${method} ${urlTemplate}`)).toEqual([
      "POST /v1/uploads",
      ...rangesOf(SIZE).map(() => "PUT /v1/uploads/{uploadId}"),
      ...Array.from({ length: polls }, () => "GET /v1/uploads/{uploadId}"),
    ]);
    // Every request was handed the upload's own operation, which the adapter made of its span (the
    // http package parents its CLIENT span on it).
    for (const request of sent) {
      expect((request.parent as { span: ReadableSpan }).span.spanContext().spanId).toBe(
        span.spanContext().spanId,
      );
    }
  });
});

describe("promo_review.upload.chunk: one event per chunk attempt, with its range, bytes, attempt and outcome", () => {
  it("every chunk acknowledged at its first attempt", async () => {
    await tracedUploader().upload(fileOf(), {});
    expect(eventsOf(uploadSpan(), "promo_review.upload.chunk")).toEqual(
      rangesOf(SIZE).map(([start, end]) => chunk(start, end, 1, "acknowledged")),
    );
  });

  it("a chunk that failed once is retried: its event at attempt 1 says why, then attempt 2 is acknowledged", async () => {
    const uploader = tracedUploader();
    const upload = startUpload(uploader, fileOf(), {});
    upload.on("chunk", (c) => {
      // The fourth chunk's first attempt meets a 503.
      if (c.end === 3 * CHUNK) {
        sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 503, count: 1 });
      }
    });
    const result = await upload.done;
    expect(result.retries).toBe(1);
    const events = eventsOf(uploadSpan(), "promo_review.upload.chunk");
    const retried = events.find((e) => e["promo_review.upload.outcome"] === "retried")!;
    expect(retried).toEqual(chunk(3 * CHUNK, 4 * CHUNK, 1, "retried", retried["error.type"] as string));
    expect(retried["error.type"]).toMatch(/^[A-Z_]+$/); // the error's code, never its message
    expect(events).toEqual([
      ...rangesOf(3 * CHUNK).map(([start, end]) => chunk(start, end, 1, "acknowledged")),
      retried,
      chunk(3 * CHUNK, 4 * CHUNK, 2, "acknowledged"),
      ...rangesOf(SIZE, 4 * CHUNK).map(([start, end]) => chunk(start, end, 1, "acknowledged")),
    ]);
    // Its two PUTs are two CLIENT spans, the first one failed with the 503.
    const puts = requestsUnder(uploadSpan()).filter((r) => r.name.startsWith("PUT "));
    expect(puts).toHaveLength(rangesOf(SIZE).length + 1);
    expect(puts[3]!.attributes).toMatchObject({
      "http.response.status_code": 503,
      "error.type": retried["error.type"],
    });
    expect(puts[3]!.status.code).toBe(2);
    expect(puts[4]!.status.code).not.toBe(2);
    // What the service saw agrees: the fourth range was sent twice, the first time refused.
    expect(chunkPuts(sim, result.uploadId).filter((p) => p.range.startsWith(`bytes ${3 * CHUNK}-`))).toEqual([
      expect.objectContaining({ status: 503 }),
      expect.objectContaining({ status: 200 }),
    ]);
  });
});

/**
 * A `fetch` that changes the JSON of the first answer `matches` picks with `change` (a service that
 * says something else than the simulator would), and passes everything else through.
 */
function changingFirst(
  matches: (method: string, url: string) => boolean,
  change: (body: Record<string, unknown>) => Record<string, unknown>,
): typeof fetch {
  let changed = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = String(input instanceof Request ? input.url : input);
    if (changed || !response.ok || !matches(methodOf(input, init), url)) return response;
    changed = true;
    const body = change((await response.json()) as Record<string, unknown>);
    const { status, headers } = response;
    return Response.json(body, {
      status,
      headers: { "x-correlation-id": headers.get("x-correlation-id") ?? "" },
    });
  };
}

describe("promo_review.upload.chunk: the service's other answers, resynced and shrunk", () => {
  it("a chunk the service refuses as too large (413 max_chunk_size) is shrunk, then sent in smaller chunks", async () => {
    // The initiation says twice the limit the service enforces on the chunks.
    const fetch = changingFirst(
      (method, url) => method === "POST" && url.endsWith("/v1/uploads"),
      (body) => ({ ...body, maxChunkSize: 2 * CHUNK }),
    );
    await tracedUploader({ fetch }).upload(fileOf(), {});
    const events = eventsOf(uploadSpan(), "promo_review.upload.chunk");
    expect(events[0]).toEqual(chunk(0, 2 * CHUNK, 1, "shrunk", events[0]?.["error.type"] as string));
    expect(events[0]?.["error.type"]).toBe("PAYLOAD_TOO_LARGE");
    // The attempt count goes on from byte 0 (as the upload's own `chunk` event counts it).
    expect(events.slice(1)).toEqual(
      rangesOf(SIZE).map(([start, end]) => chunk(start, end, start === 0 ? 2 : 1, "acknowledged")),
    );
  });

  it("a chunk the service expected elsewhere (409) is resynced to the offset it names", async () => {
    const first = startUpload(tracedUploader(), fileOf(SIZE, 9), {});
    first.on("chunk", (c) => {
      if (c.receivedBytes >= CHUNK) first.abort();
    });
    await first.done.catch(() => {});
    const uploadId = first.uploadId!;
    const held = sim.control.upload(uploadId).receivedBytes;
    otel.reset();
    // The resume's status read claims two chunks more than the service holds (still within the file).
    const fetch = changingFirst(
      (method, url) => method === "GET" && url.endsWith(`/v1/uploads/${uploadId}`),
      (body) => ({ ...body, receivedBytes: held + 2 * CHUNK }),
    );
    // The chunk size given: a resume by id from another store does not know the service's limit.
    await tracedUploader({ fetch }).resume(uploadId, fileOf(SIZE, 9), { chunkSize: CHUNK });
    const events = eventsOf(uploadSpan(), "promo_review.upload.chunk");
    expect(events[0]).toMatchObject({
      "promo_review.upload.range_start": held + 2 * CHUNK,
      "promo_review.upload.attempt": 1,
      "promo_review.upload.outcome": "resynced",
    });
    expect(events[0]?.["error.type"]).toMatch(/^[A-Z_]+$/);
    // Then every chunk from the byte the service really held.
    expect(events.slice(1)).toEqual(
      rangesOf(SIZE, held).map(([start, end]) => chunk(start, end, 1, "acknowledged")),
    );
  });
});

describe("promo_review.upload.resumed: a resumed upload says where it resumed, and sends only the rest", () => {
  it("a second run of a file the store remembers resumes at the service's offset, from the store", async () => {
    const store = memoryResumeStore();
    const uploader = tracedUploader({ store });
    // First run: stopped once the service holds three chunks.
    const first = startUpload(uploader, fileOf(SIZE, 7), {});
    first.on("chunk", (c) => {
      if (c.receivedBytes >= 3 * CHUNK) first.abort();
    });
    await expect(first.done).rejects.toMatchObject({ code: "ABORTED" });
    expect(uploadSpan().status.code).toBe(2);
    const held = sim.control.upload(first.uploadId!).receivedBytes;
    expect(held).toBeGreaterThanOrEqual(3 * CHUNK);
    otel.reset();

    const result = await uploader.upload(fileOf(SIZE, 7), {});
    expect(result.uploadId).toBe(first.uploadId);
    const span = uploadSpan();
    const offset = statusGivesOffset() ? held : 0;
    expect(result.resumedFrom).toBe(offset);
    expect(span.attributes["promo_review.upload_id"]).toBe(first.uploadId);
    expect(eventsOf(span, "promo_review.upload.resumed")).toEqual([
      { "promo_review.upload.offset": offset, "promo_review.upload.from_resume_store": true },
    ]);
    // Only the chunks the service did not hold were sent in this run. Without an offset in the status
    // (a profile's reading of a gap) the client cannot know it, and sends from 0, the service taking a
    // repeat of a range it holds.
    expect(eventsOf(span, "promo_review.upload.chunk")).toEqual(
      rangesOf(SIZE, offset).map(([start, end]) => chunk(start, end, 1, "acknowledged")),
    );
  });

  it("an upload resumed by id says it was not found in the store", async () => {
    const uploader = tracedUploader();
    const first = startUpload(uploader, fileOf(SIZE, 8), {});
    first.on("chunk", (c) => {
      if (c.receivedBytes >= CHUNK) first.abort();
    });
    await first.done.catch(() => {});
    otel.reset();
    // Another uploader (another store): only the id links the two runs.
    await tracedUploader().resume(first.uploadId!, fileOf(SIZE, 8), {});
    expect(eventsOf(uploadSpan(), "promo_review.upload.resumed")).toEqual([
      {
        "promo_review.upload.offset": expect.any(Number),
        "promo_review.upload.from_resume_store": false,
      },
    ]);
  });
});

describe("promo_review.upload.poll: one event per completion poll, with the status seen", () => {
  it("the polls of phase 3, in order, the last one completed", async () => {
    const result = await tracedUploader().upload(fileOf(), {});
    const statuses = eventsOf(uploadSpan(), "promo_review.upload.poll").map(
      (e) => e["promo_review.upload.status"],
    );
    // As many as the status reads the service saw after the last chunk.
    const reads = sim.control
      .requests()
      .filter((r) => r.method === "GET" && r.path === `/v1/uploads/${result.uploadId}`);
    expect(statuses).toHaveLength(reads.length);
    expect(statuses.length).toBeGreaterThan(1);
    expect(statuses.at(-1)).toBe("completed");
    expect(statuses.slice(0, -1).every((s) => s !== "completed")).toBe(true);
  });

  it("uploader.waitForCompletion and uploader.status are operations too", async () => {
    const uploader = tracedUploader();
    const { uploadId } = await uploader.upload(fileOf(), { waitForCompletion: false });
    otel.reset();
    await uploader.waitForCompletion(uploadId);
    await uploader.status(uploadId);
    const [wait] = otel.spansNamed("uploads.waitForCompletion");
    const [status] = otel.spansNamed("uploads.status");
    expect(wait?.attributes["promo_review.upload_id"]).toBe(uploadId);
    expect(eventsOf(wait!, "promo_review.upload.poll").at(-1)).toEqual({
      "promo_review.upload.status": "completed",
    });
    expect(status?.attributes["promo_review.upload_id"]).toBe(uploadId);
  });
});

describe("promo_review.upload.throughput: one By/s point per completed upload, by format only", () => {
  it("is recorded once per upload, with no id among its attributes", async () => {
    const metricsOnly = recordingTelemetry();
    try {
      // A meter provider alone: the metric without any span.
      const uploader = uploaderFor(sim, {
        telemetry: openTelemetry({ meterProvider: metricsOnly.meterProvider }),
      });
      await uploader.upload(fileOf(), {});
      await uploader.upload(fileOf(CHUNK, 2), { contentType: "application/pdf", fileName: "a.pdf" });
      const points = (await metricsOnly.metrics()).get("promo_review.upload.throughput") ?? [];
      expect(points.map((p) => p.attributes)).toEqual([
        { "promo_review.upload.format": "video" },
        { "promo_review.upload.format": "pdf" },
      ]);
      for (const point of points) {
        const value = point.value as { count: number; min: number };
        expect(value.count).toBe(1);
        expect(value.min).toBeGreaterThan(0);
      }
      expect(metricsOnly.spans()).toEqual([]);
    } finally {
      await metricsOnly.shutdown();
    }
  });

  it("an upload that fails records none", async () => {
    const metrics = recordingTelemetry();
    try {
      sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 400 });
      const uploader = uploaderFor(sim, {
        telemetry: openTelemetry({ meterProvider: metrics.meterProvider }),
        retry: false,
      });
      await expect(uploader.upload(fileOf(), {})).rejects.toMatchObject({ code: "SERVICE_ERROR" });
      expect((await metrics.metrics()).get("promo_review.upload.throughput") ?? []).toEqual([]);
    } finally {
      await metrics.shutdown();
    }
  });
});

describe("no secret, upload token or file name in any span, event or metric", () => {
  it("with an uploadUrl carrying a token, a retried chunk and a name that is personal data", async () => {
    const token = "upl_tok_9f8e7d6c5b4a39281706";
    const fileName = "Jane Doe passport scan.pdf";
    // The service hands out an uploadUrl with a token in its query (allowed: it is the service's URL).
    const tokenised: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = String(input instanceof Request ? input.url : input);
      if (methodOf(input, init) !== "POST" || !url.endsWith("/v1/uploads")) return response;
      const body = (await response.json()) as { uploadUrl: string };
      const { status, headers } = response;
      return Response.json(
        { ...body, uploadUrl: `${body.uploadUrl}?token=${token}` },
        { status, headers: { "x-correlation-id": headers.get("x-correlation-id") ?? "" } },
      );
    };
    const uploader = tracedUploader({ fetch: tokenised });
    sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 503, count: 1 });
    const result = await uploader.upload(patterned(SIZE, 3), { fileName, contentType: "application/pdf" });
    // The token really was used: the service saw it (and logged it redacted) on every chunk.
    const puts = sim.control
      .requests()
      .filter((r) => r.method === "PUT" && r.path === `/v1/uploads/${result.uploadId}`);
    expect(puts.length).toBeGreaterThan(SIZE / CHUNK);
    expect(puts.every((r) => r.query["token"] !== undefined)).toBe(true);
    const span = uploadSpan();
    expect(span.attributes["promo_review.upload_id"]).toBe(result.uploadId);
    // Every chunk's CLIENT span names the template, and its url.full has the token's value removed.
    const chunkSpans = requestsUnder(span).filter((r) => r.name.startsWith("PUT "));
    expect(chunkSpans.length).toBe(puts.length);
    for (const chunkSpan of chunkSpans) {
      expect(chunkSpan.name).toBe("PUT /v1/uploads/{uploadId}");
      expect(chunkSpan.attributes["url.full"]).toBe(
        `${sim.filesUrl}/v1/uploads/${result.uploadId}?token=[REDACTED]`,
      );
    }
    const strings = await otel.everyString();
    expect(strings.length).toBeGreaterThan(10);
    for (const secret of [sim.apiKey, token, fileName, "Jane Doe"]) {
      expect(strings.filter((s) => s.includes(secret))).toEqual([]);
    }
  });
});

describe("without a provider nothing runs", () => {
  it("no telemetry, no operation handed to a request, nothing recorded; a client without `telemetry` works", async () => {
    const given: (RequestOptions | undefined)[] = [];
    let asked = 0;
    const real = createHttpClient({
      baseUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
    });
    const http: HttpClient = {
      ...real,
      get telemetry() {
        asked++;
        return real.telemetry;
      },
      request(path: string, options?: RequestOptions) {
        given.push(options);
        return real.request(path, options);
      },
    };
    const uploader = createUploader({ http, pollIntervalMs: 5 });
    const result = await uploader.upload(fileOf(), {});
    expect(asked).toBe(0); // the uploader's observer is its own `telemetry` option: none
    expect(result.status).toBe("completed");
    expect(given.length).toBeGreaterThan(SIZE / CHUNK);
    expect(given.filter((options) => options?.parent !== undefined)).toEqual([]);
    // An HttpClient a user wrote, without the optional observer.
    const { telemetry: _, ...plain } = real;
    expect((await createUploader({ http: plain, pollIntervalMs: 5 }).upload(fileOf(), {})).status).toBe(
      "completed",
    );
    expect(otel.spans()).toEqual([]);
  });

  it("spans sampled out: the upload works and nothing is recorded", async () => {
    const off = recordingTelemetry({ sampledOut: true });
    try {
      const result = await uploaderFor(sim, {
        telemetry: openTelemetry({ tracerProvider: off.tracerProvider }),
      }).upload(fileOf(), {});
      expect(result.status).toBe("completed");
      expect(off.spans()).toEqual([]);
    } finally {
      await off.shutdown();
    }
  });
});

describe("UPLOAD_CHUNKER_VERSION (the instrumentation scope's version)", () => {
  it("is package.json's version", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "..", "package.json"), "utf8"));
    expect(UPLOAD_CHUNKER_VERSION).toBe(manifest.version);
  });
});
