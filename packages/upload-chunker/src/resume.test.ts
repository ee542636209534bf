import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type PromoReviewError, ValidationError } from "@promo-review/errors";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readingOf } from "../../../testing/simulator.ts";
import {
  chunkPuts,
  methodOf,
  patterned,
  SOURCE_KINDS,
  sha256,
  simulatorWithUploader,
  uploaderFor,
  webStreamOf,
} from "../test/support/uploads.js";
import {
  createUploader,
  fromStream,
  memoryResumeStore,
  type ResumeRecord,
  startUpload,
  type Uploader,
  webStorageResumeStore,
} from "./index.js";

const CHUNK = 64 * 1024;
let sim: Simulator;
let uploader: Uploader;
let work: string;

beforeAll(async () => {
  ({ sim, uploader } = await simulatorWithUploader({ maxChunkSize: CHUNK }));
  work = await mkdtemp(join(tmpdir(), "upload-chunker-resume-"));
});
afterAll(async () => {
  await sim.close();
  await rm(work, { recursive: true, force: true });
});

/** Starts an upload and aborts it once the service holds `stopAt` bytes; returns its id. */
async function interrupted(
  u: Uploader,
  source: Parameters<Uploader["upload"]>[0],
  stopAt: number,
  size?: number,
) {
  const upload = startUpload(u, source, {
    fileName: "clip.mp4",
    contentType: "video/mp4",
    ...(size ? { size } : {}),
  });
  upload.on("chunk", (c) => {
    if (c.receivedBytes >= stopAt) upload.abort();
  });
  await upload.done.catch(() => {});
  return upload.uploadId!;
}

describe("resume after the uploading process was killed half-way, from a second process", () => {
  it("picks up from the byte the service holds, found through a file-backed store", async () => {
    const child = join(work, "upload-child.mjs");
    await build({
      entryPoints: [join(import.meta.dirname, "..", "test", "fixtures", "upload-child.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: child,
      logLevel: "silent",
    });
    const bytes = patterned(64 * CHUNK + 123, 31);
    const filePath = join(work, "clip.mp4");
    await writeFile(filePath, bytes);
    const args = [child, sim.filesUrl, sim.apiKey, sim.externalUserId, join(work, "store.json"), filePath];
    // Slow chunks, so the first process is surely still uploading when it is killed.
    const slow = sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "slow", delayMs: 20 });

    const first = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let uploadId = "";
    let killedAt = 0;
    for await (const line of createInterface({ input: first.stdout })) {
      const report = JSON.parse(line) as { uploadId: string; acknowledged: number };
      uploadId = report.uploadId;
      if (report.acknowledged >= bytes.length / 2) {
        first.kill("SIGKILL");
        killedAt = report.acknowledged;
        break;
      }
    }
    await new Promise((resolve) => first.once("exit", resolve));
    sim.control.removeFault(slow.faultId);
    const held = sim.control.upload(uploadId).receivedBytes;
    expect(held).toBeGreaterThanOrEqual(killedAt);
    expect(held).toBeLessThan(bytes.length);

    const second = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let result: { uploadId: string; resumedFrom: number; status: string } | undefined;
    for await (const line of createInterface({ input: second.stdout })) {
      const parsed = JSON.parse(line) as { result?: typeof result };
      if (parsed.result) result = parsed.result;
    }
    // The chunk in flight at the kill may still land after `held` was read (its bytes were already in
    // the socket): the second process then starts one chunk further, at what the service holds.
    expect(result).toMatchObject({ uploadId, status: "completed" });
    // The status's receivedBytes is the simulator's extension (docs/gaps.md row 7): without it a resume
    // starts at 0 and the 409's content_range_start moves it on.
    expect(statusGivesOffset() ? [held, held + CHUNK] : [0]).toContain(result!.resumedFrom);
    expect(sim.control.upload(uploadId).sha256).toBe(sha256(bytes));
    // The second process sent nothing the service already held.
    const ranges = chunkPuts(sim, uploadId).map((p) => Number(/bytes (\d+)-/.exec(p.range)![1]));
    const resent = ranges.filter(
      (start, i) => i > 0 && start < result!.resumedFrom && ranges.indexOf(start) !== i,
    );
    expect(resent).toEqual([]);
  });
});

describe("resume within a process", () => {
  it("upload() of the same file continues its unfinished upload (memory store)", async () => {
    const bytes = patterned(10 * CHUNK, 37);
    const file = new File([bytes as BlobPart], "clip.mp4", { lastModified: 1_700_000_000_000 });
    const id = await interrupted(uploader, file, 4 * CHUNK);
    const again = new File([bytes as BlobPart], "clip.mp4", { lastModified: 1_700_000_000_000 });
    const result = await uploader.upload(again, { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(result).toMatchObject({
      uploadId: id,
      resumedFrom: statusGivesOffset() ? 4 * CHUNK : 0,
      status: "completed",
    });
    expect(sim.control.upload(id).sha256).toBe(sha256(bytes));
    // Finished uploads are forgotten: the same file again is a new upload.
    const third = await uploader.upload(again, { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(third.uploadId).not.toBe(id);
  });

  for (const kind of ["ReadableStream", "AsyncIterable", "Uint8Array", "Blob"]) {
    it(`resume(uploadId, ${kind}) skips the bytes the service holds`, async () => {
      const bytes = patterned(6 * CHUNK + 5, 41);
      const { source, size } = SOURCE_KINDS[kind]!(bytes);
      const id = await interrupted(uploader, patterned(6 * CHUNK + 5, 41), 3 * CHUNK);
      const result = await uploader.resume(id, source, {
        fileName: "clip.mp4",
        contentType: "video/mp4",
        ...(size ? { size } : {}),
      });
      expect(result.resumedFrom).toBe(statusGivesOffset() ? 3 * CHUNK : 0);
      expect(sim.control.upload(id).sha256).toBe(sha256(bytes));
      // Without the offset in the status, the three held chunks go again and are taken as repeats.
      expect(chunkPuts(sim, id).filter((p) => p.status === 200)).toHaveLength(statusGivesOffset() ? 7 : 10);
    });
  }

  it("a stream cannot go back before bytes it has passed: the service being behind is a clear error", async () => {
    const bytes = patterned(4 * CHUNK, 43);
    let sent = 0;
    // Stands in for a service that lost a stored chunk: it answers as if it held nothing.
    const forgetful: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (methodOf(input, init) === "PUT" && ++sent === 2) {
        // The chunk answer may have no body at all (docs/gaps.md row 12).
        const text = await response.text();
        const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
        return new Response(JSON.stringify({ ...body, receivedBytes: 0 }), {
          status: 200,
          headers: response.headers,
        });
      }
      return response;
    };
    const client = createUploader({
      filesUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
      fetch: forgetful,
    });
    const error = await client
      .upload(fromStream(webStreamOf(bytes)), {
        fileName: "a.pdf",
        contentType: "application/pdf",
        size: bytes.length,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toMatch(/cannot be sent again; resume with a seekable source/);
  });

  it("resuming a completed upload sends nothing", async () => {
    const bytes = patterned(2 * CHUNK, 47);
    const done = await uploader.upload(bytes, { fileName: "a.pdf", contentType: "application/pdf" });
    const before = chunkPuts(sim, done.uploadId).length;
    const again = await uploader.resume(done.uploadId, bytes, {
      fileName: "a.pdf",
      contentType: "application/pdf",
    });
    expect(again).toMatchObject({ uploadId: done.uploadId, status: "completed", resumedFrom: bytes.length });
    expect(chunkPuts(sim, done.uploadId)).toHaveLength(before);
  });

  it("resuming with a source of another size is refused", async () => {
    const id = await interrupted(uploader, patterned(4 * CHUNK), CHUNK);
    const error = await uploader
      .resume(id, patterned(4 * CHUNK + 1), { fileName: "a.pdf", contentType: "application/pdf" })
      .catch((e: unknown) => e);
    expect((error as PromoReviewError).code).toBe("VALIDATION_ERROR");
    expect((error as Error).message).toMatch(/expects 262144 bytes but the source holds 262145/);
  });

  it("a remembered upload the service no longer knows, or that failed, is started again", async () => {
    const store = memoryResumeStore();
    const client = createUploader({
      filesUrl: sim.filesUrl,
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
      store,
      pollIntervalMs: 5,
    });
    const bytes = patterned(3 * CHUNK, 53);
    const file = () => new File([bytes as BlobPart], "gone.mp4", { lastModified: 5 });
    const id = await interrupted(client, file(), CHUNK);
    await sim.control.reset(); // the service forgets every upload
    const result = await client.upload(file(), { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(result.uploadId).not.toBe(id);
    expect(result.resumedFrom).toBe(0);
    expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
  });
});

describe("one upload of a file at a time within an uploader", () => {
  // The rule is the uploader's own, whatever a service variant answers: a simulator with the
  // interface's default answers (the profiles' variants, e.g. a status without the offset, change
  // what a resume can know, not whether two uploads of one file go side by side).
  let sim: Simulator;
  let uploader: Uploader;
  beforeAll(async () => {
    sim = await startSimulator({ maxChunkSize: CHUNK, uploadProcessingDelayMs: 5 });
    uploader = uploaderFor(sim);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it("the same bytes uploaded again while their first upload sends wait for it: no upload gets the same bytes side by side", async () => {
    const bytes = patterned(6 * CHUNK, 43);
    const file = () => new File([bytes as BlobPart], "twice.pdf", { lastModified: 1_700_000_000_000 });
    const options = { fileName: "twice.pdf", contentType: "application/pdf" };
    // Without the queue both could find the same unfinished upload and send its chunks twice over (the
    // batch crash loop saw exactly that). The second starts once the first holds the file (its first
    // progress report comes from inside the queue): which of two uploads started in the same tick gets
    // there first is the order of their fingerprints' digests, which nothing promises.
    const stopped = new AbortController();
    let firstHolds!: () => void;
    const held = new Promise<void>((resolve) => {
      firstHolds = resolve;
    });
    const first = uploader.upload(file(), {
      ...options,
      signal: stopped.signal,
      onProgress: (p) => {
        firstHolds();
        if (p.bytesAcknowledged >= 2 * CHUNK) stopped.abort(new Error("the first caller went away"));
      },
    });
    await Promise.race([held, first]);
    const second = uploader.upload(file(), options);
    await expect(first).rejects.toMatchObject({ name: "AbortError" });
    const done = await second;
    // The second waited, then continued the first's upload from the service's offset.
    expect(done.resumedFrom).toBeGreaterThanOrEqual(2 * CHUNK);
    const puts = chunkPuts(sim, done.uploadId);
    const ranges = puts.map((p) => p.range);
    expect(new Set(ranges).size, ranges.join(", ")).toBe(ranges.length);
    expect(sim.control.upload(done.uploadId).sha256).toBe(sha256(bytes));
  });

  it("a second upload waiting for the first stops at its own signal, and the first goes on", async () => {
    const bytes = patterned(4 * CHUNK, 47);
    const options = { fileName: "wait.pdf", contentType: "application/pdf" };
    let secondStop!: AbortController;
    let waiting!: Promise<unknown>;
    const first = uploader.upload(bytes, {
      ...options,
      onProgress: (p) => {
        // Started while the first sends, then given up on.
        if (p.bytesAcknowledged >= CHUNK && waiting === undefined) {
          secondStop = new AbortController();
          waiting = uploader.upload(bytes, { ...options, signal: secondStop.signal });
          secondStop.abort(new Error("the second caller went away"));
        }
      },
    });
    const done = await first;
    // As a store's own lock does (web storage's Web Locks): waiting ends with the signal's reason.
    await expect(waiting).rejects.toThrow("the second caller went away");
    expect(sim.control.upload(done.uploadId).sha256).toBe(sha256(bytes));
  });
});

describe("stores", () => {
  it("webStorageResumeStore keeps records as JSON and ignores damaged entries", async () => {
    const data = new Map<string, string>();
    const storage = {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    };
    const store = webStorageResumeStore(storage, "p:");
    const record: ResumeRecord = { uploadId: "u-1", maxChunkSize: 10, fileSize: 20 };
    await store.set("fp", record);
    expect(JSON.parse(data.get("p:fp")!)).toMatchObject(record);
    expect(await store.get("fp")).toEqual(record);
    data.set("p:bad", "{not json");
    data.set("p:partial", JSON.stringify({ uploadId: "u" }));
    expect(await store.get("bad")).toBeUndefined();
    expect(await store.get("partial")).toBeUndefined();
    expect(await store.get("missing")).toBeUndefined();
    await store.delete("fp");
    expect(data.has("p:fp")).toBe(false);
  });

  it("a reloaded page (a new uploader over the same storage) resumes", async () => {
    const data = new Map<string, string>();
    const storage = {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
      removeItem: (k: string) => void data.delete(k),
    };
    const page = () =>
      createUploader({
        filesUrl: sim.filesUrl,
        sessionToken: sim.sessionToken,
        workspaceId: sim.workspaceId,
        store: webStorageResumeStore(storage),
        pollIntervalMs: 5,
      });
    const bytes = patterned(5 * CHUNK, 59);
    const file = () => new File([bytes as BlobPart], "page.png", { lastModified: 7 });
    const id = await interrupted(page(), file(), 2 * CHUNK);
    expect(data.size).toBe(1);
    const result = await page().upload(file(), { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(result).toMatchObject({ uploadId: id, resumedFrom: statusGivesOffset() ? 2 * CHUNK : 0 });
    expect(data.size).toBe(0);
  });
});

/** Whether the upload status names the offset to resume from (the simulator's reading of row 7). */
function statusGivesOffset(): boolean {
  return readingOf(sim, 7) !== "without-received-bytes";
}
