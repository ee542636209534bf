import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeStreamFetch } from "@promo-review/http/node";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  addFailingChunkFaults,
  chunkPuts,
  expectSendsExplainedByFailures,
  iterableOf,
  methodOf,
  patterned,
  sha256,
  simulatorWithUploader,
  webStreamOf,
} from "../test/support/uploads.js";
import { createUploader, fromStream, type RetryEvent, startUpload, type Uploader } from "./index.js";
import { fileSource } from "./node.js";

const CHUNK = 256 * 1024;
let sim: Simulator;
let uploader: Uploader;
let dir: string;

beforeAll(async () => {
  ({ sim, uploader } = await simulatorWithUploader(
    { maxChunkSize: CHUNK, seed: 5 },
    { fetch: nodeStreamFetch },
  ));
  dir = await mkdtemp(join(tmpdir(), "node-transport-"));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

describe("on Node, chunk bodies go through node:http (nodeStreamFetch) unless another fetch is given", () => {
  // The platform's fetch is looked up at call time, so the spy below sees the calls made through it.
  const platformFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);
  it.each([
    ["by default", {}, 0],
    ["nodeStreamFetch given", { fetch: nodeStreamFetch }, 0],
    ["the platform's fetch given", { fetch: platformFetch }, 4 * 6],
  ])("every streamed source kind arrives intact (%s)", async (_, config, platformPuts) => {
    const platform = vi.spyOn(globalThis, "fetch");
    try {
      const bytes = patterned(5 * CHUNK + 777, 3);
      const path = join(dir, "clip.mp4");
      await writeFile(path, bytes);
      const sources = {
        ReadableStream: fromStream(webStreamOf(bytes, [1000, 70_000, 300_000])),
        AsyncIterable: fromStream(iterableOf(bytes)),
        Blob: new Blob([bytes as BlobPart]),
        fileSource: await fileSource(path),
      };
      const chosen = createUploader({
        filesUrl: sim.filesUrl,
        apiKey: sim.apiKey,
        externalUserId: sim.externalUserId,
        pollIntervalMs: 5,
        ...config,
      });
      for (const [kind, source] of Object.entries(sources)) {
        const result = await chosen.upload(source, {
          fileName: `${kind}.mp4`,
          contentType: "video/mp4",
          size: bytes.length,
        });
        expect(sim.control.upload(result.uploadId), kind).toMatchObject({
          status: "completed",
          sha256: sha256(bytes),
        });
        expect(chunkPuts(sim, result.uploadId)).toHaveLength(6);
      }
      const puts = platform.mock.calls.filter(([input, init]) => methodOf(input, init) === "PUT");
      expect(puts).toHaveLength(platformPuts);
      expect(platform).toHaveBeenCalled(); // initiation and status reads use it in every case
    } finally {
      platform.mockRestore();
    }
  });
});

describe("nodeStreamFetch under failures", () => {
  it("20% of chunk PUTs failing (5xx, resets mid-body, 429, an HTML 502): intact, every extra send explained by a failure", async () => {
    addFailingChunkFaults(sim, { resetAfterBytes: 100_000, seed: 200 });
    try {
      const size = 64 * CHUNK;
      const bytes = patterned(size, 9);
      const retries: RetryEvent[] = [];
      const upload = startUpload(uploader, fromStream(webStreamOf(bytes)), {
        fileName: "f.mp4",
        contentType: "video/mp4",
        size,
      });
      upload.on("retry", (r) => retries.push(r));
      const result = await upload.done;
      expect(sim.control.upload(result.uploadId)).toMatchObject({
        status: "completed",
        sha256: sha256(bytes),
      });
      const failed = expectSendsExplainedByFailures(sim, result.uploadId, size, CHUNK);
      expect(failed).toBe(retries.length);
      expect(failed).toBeGreaterThan(3);
      expect(new Set(chunkPuts(sim, result.uploadId).map((p) => p.fault))).toContain("reset");
    } finally {
      sim.control.clearFaults();
    }
  });
});

describe("Blob and fileSource chunks arrive intact when PUTs fail mid-body (fileSource's read buffers are reused from chunk to chunk)", () => {
  it.each(["Blob", "fileSource"])(
    "%s under 20% of chunk PUTs failing (resets mid-body included): every byte intact",
    async (kind) => {
      addFailingChunkFaults(sim, { resetAfterBytes: 100_000, seed: 4 });
      try {
        const size = 16 * CHUNK + 99;
        const bytes = patterned(size, 11);
        const path = join(dir, `${kind}.mp4`);
        await writeFile(path, bytes);
        const source = kind === "Blob" ? new Blob([bytes as BlobPart]) : await fileSource(path);
        const upload = startUpload(uploader, source, { fileName: `${kind}.mp4`, contentType: "video/mp4" });
        const retries: RetryEvent[] = [];
        upload.on("retry", (r) => retries.push(r));
        const result = await upload.done;
        expect(sim.control.upload(result.uploadId)).toMatchObject({
          status: "completed",
          sha256: sha256(bytes),
        });
        expect(expectSendsExplainedByFailures(sim, result.uploadId, size, CHUNK)).toBe(retries.length);
        expect(retries.length).toBeGreaterThan(0);
      } finally {
        sim.control.clearFaults();
      }
    },
  );
});
