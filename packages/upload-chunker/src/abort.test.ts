import { AbortError } from "@promo-review/errors";
import { nodeStreamFetch } from "@promo-review/http/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildSimulator, childSimulator, patterned } from "../test/support/uploads.js";
import { createUploader, fromStream, startUpload, type Uploader, uploadStateOf } from "./index.js";
import { DEFAULT_READ_AHEAD_BYTES } from "./uploader.js";

// The simulator runs in another process, so the timers and sockets counted here are the client's.
const CHUNK = 4 * 1024 * 1024;
let sim: ChildSimulator;

beforeAll(async () => {
  sim = await childSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 600_000 });
});
afterAll(() => sim.close());

function uploaderFor(retry = {}, fetch?: typeof globalThis.fetch): Uploader {
  return createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    retry: { baseDelayMs: 600_000, maxDelayMs: 600_000, ...retry },
    pollIntervalMs: 600_000,
    ...(fetch ? { fetch } : {}),
  });
}

/**
 * Both ways a chunk can go out: node:http through `nodeStreamFetch` (Node's default), and the
 * platform's fetch (every other runtime's, or Node's when passed as `fetch`).
 */
const TRANSPORTS: [string, typeof globalThis.fetch][] = [
  ["nodeStreamFetch", nodeStreamFetch],
  ["the platform's fetch", globalThis.fetch],
];

/** Active timers and sockets of this process. */
function resources() {
  const kinds = process.getActiveResourcesInfo();
  return {
    timers: kinds.filter((k) => k === "Timeout").length,
    sockets: kinds.filter((k) => k === "TCPSocketWrap").length,
  };
}

/** Lets closing sockets finish closing (their close is reported on later turns of the event loop). */
async function settle(baseline: { timers: number; sockets: number }) {
  for (let turn = 0; turn < 1000; turn++) {
    const now = resources();
    if (now.timers <= baseline.timers && now.sockets <= baseline.sockets) return now;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return resources();
}

/** A stream source that records being read and cancelled, and calls `onRead` with the bytes read. */
function watchedStream(bytes: Uint8Array, onRead: (read: number) => void) {
  const seen = { read: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.read >= bytes.length) return controller.close();
      const piece = bytes.slice(seen.read, seen.read + 256 * 1024);
      seen.read += piece.length;
      controller.enqueue(piece);
      onRead(seen.read);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe("an abort stops the read, the chunk in flight and every timer at once", () => {
  it.each(TRANSPORTS)(
    "while a chunk is on the wire and the next is being read ahead (%s)",
    async (_, fetch) => {
      const uploader = uploaderFor({}, fetch);
      await uploader.upload(patterned(10), {
        fileName: "warm.pdf",
        contentType: "application/pdf",
        waitForCompletion: false,
      });
      // The service holds the first chunk's request without reading it, so it is surely in flight.
      await sim.addFault({ route: "PUT /v1/uploads/*", kind: "slow", delayMs: 600_000, count: 1 });
      const baseline = resources();
      const controller = new AbortController();
      // Longer than the first chunk and the read-ahead after it, so the read is surely cut short.
      const bytes = patterned(3 * CHUNK + DEFAULT_READ_AHEAD_BYTES);
      const { stream, seen } = watchedStream(bytes, (read) => {
        // Reading into the second chunk means the first one's PUT has started.
        if (read > CHUNK + 512 * 1024) setImmediate(() => controller.abort());
      });
      const upload = startUpload(uploader, fromStream(stream), {
        fileName: "a.mp4",
        contentType: "video/mp4",
        size: bytes.length,
        signal: controller.signal,
      });
      const error = await upload.done.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AbortError);
      expect(uploadStateOf(error)).toMatchObject({ uploadId: upload.uploadId, bytesAcknowledged: 0 });
      expect(seen.cancelled).toBe(true);
      expect(seen.read).toBeLessThan(bytes.length);
      const after = await settle(baseline);
      expect(after.timers).toBeLessThanOrEqual(baseline.timers);
      expect(after.sockets).toBeLessThanOrEqual(baseline.sockets);
    },
  );

  it("while waiting to retry a failed chunk (the backoff timer is cleared)", async () => {
    const uploader = uploaderFor();
    await sim.addFault({ route: "PUT /v1/uploads/*", kind: "status", status: 503, count: 1 });
    const baseline = resources();
    const upload = startUpload(uploader, patterned(100), {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    upload.on("retry", () => upload.abort());
    const error = await upload.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    const after = await settle(baseline);
    expect(after.timers).toBeLessThanOrEqual(baseline.timers);
  });

  it("while polling for completed (the poll timer is cleared)", async () => {
    const uploader = uploaderFor();
    const baseline = resources();
    const controller = new AbortController();
    const upload = startUpload(uploader, patterned(100), {
      fileName: "a.pdf",
      contentType: "application/pdf",
      signal: controller.signal,
    });
    upload.on("progress", (p) => {
      if (p.bytesAcknowledged === 100) setImmediate(() => controller.abort(new Error("user left")));
    });
    const error = await upload.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(uploadStateOf(error)?.bytesAcknowledged).toBe(100);
    const after = await settle(baseline);
    expect(after.timers).toBeLessThanOrEqual(baseline.timers);
  });

  it("a signal aborted before the start sends nothing", async () => {
    const upload = startUpload(uploaderFor(), patterned(100), {
      fileName: "a.pdf",
      contentType: "application/pdf",
      signal: AbortSignal.abort(),
    });
    await expect(upload.done).rejects.toBeInstanceOf(AbortError);
    expect(upload.uploadId).toBeUndefined();
  });
});
