import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isPromoReviewError } from "@promo-review/errors";
import type { Simulator } from "@promo-review/simulator";
import { build } from "esbuild";
import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, useRedis } from "../../../testing/redis-server.ts";
import { patterned, sha256, simulatorWithUploader } from "../test/support/uploads.js";
import { stateFileName } from "./file-resume-store.js";
import type { ResumeRecord, ResumeStore } from "./index.js";
import { fileResumeStore, userCacheDirectory } from "./node.js";
import { RESUME_STORE_UNAVAILABLE, redisResumeStore } from "./redis.js";

const CHUNK = 64 * 1024;
let sim: Simulator;
let work: string;
let child: string;

beforeAll(async () => {
  ({ sim } = await simulatorWithUploader({ maxChunkSize: CHUNK }));
  work = await mkdtemp(join(tmpdir(), "upload-chunker-stores-"));
  child = join(work, "upload-child-store.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "..", "test", "fixtures", "upload-child-store.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: child,
    logLevel: "silent",
    // ioredis is CommonJS: give the ESM bundle a require() for its Node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
}, 60_000);
afterAll(async () => {
  await sim.close();
  await rm(work, { recursive: true, force: true });
});

const RECORD: ResumeRecord = {
  uploadId: "5f0c8f3e-3d1a-4f0e-9b7a-2c1d0e9f8a7b",
  maxChunkSize: CHUNK,
  fileSize: 123,
};

/** What every store must do, whatever keeps it. */
async function behavesAsAStore(store: ResumeStore) {
  const fingerprint = "clip.mp4|video/mp4|123|1700000000000|abc";
  expect(await store.get(fingerprint)).toBeUndefined();
  await store.set(fingerprint, RECORD);
  expect(await store.get(fingerprint)).toEqual(RECORD);
  expect(await store.get(`${fingerprint}x`)).toBeUndefined();
  await store.set(fingerprint, { ...RECORD, maxChunkSize: 1024 });
  expect(await store.get(fingerprint)).toEqual({ ...RECORD, maxChunkSize: 1024 });
  await store.delete(fingerprint);
  expect(await store.get(fingerprint)).toBeUndefined();
  await store.delete(fingerprint);
}

/**
 * Uploads a file from a child process, SIGKILLs it once the service acknowledged half of the file,
 * then runs a second process with the same store arguments, which must finish the same upload from
 * the service's offset with the right SHA-256.
 */
async function killedAndFinished(storeArgs: string[]) {
  const bytes = patterned(48 * CHUNK + 77, 53);
  const filePath = join(work, `clip-${storeArgs[0]}.mp4`);
  await writeFile(filePath, bytes);
  const args = [child, sim.filesUrl, sim.apiKey, sim.externalUserId, filePath, ...storeArgs];
  // Slow chunks, so the first process is surely still uploading when it is killed.
  const slow = sim.control.addFault({ route: "PUT /v1/uploads/*", kind: "slow", delayMs: 20 });
  const first = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => first.once("exit", resolve));
  let uploadId = "";
  for await (const line of createInterface({ input: first.stdout })) {
    const report = JSON.parse(line) as { uploadId: string; acknowledged: number };
    uploadId = report.uploadId;
    if (report.acknowledged >= bytes.length / 2) {
      process.kill(first.pid!, "SIGKILL");
      break;
    }
  }
  await exited;
  sim.control.removeFault(slow.faultId);
  const held = sim.control.upload(uploadId).receivedBytes;
  expect(held).toBeLessThan(bytes.length);

  const second = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let result: { uploadId: string; resumedFrom: number; status: string } | undefined;
  for await (const line of createInterface({ input: second.stdout })) {
    const parsed = JSON.parse(line) as { result?: typeof result };
    if (parsed.result) result = parsed.result;
  }
  expect(result).toMatchObject({ uploadId, status: "completed" });
  // The chunk in flight at the kill may land after `held` was read: then one chunk further.
  expect([held, held + CHUNK]).toContain(result!.resumedFrom);
  expect(result!.resumedFrom).toBeGreaterThanOrEqual(bytes.length / 2);
  expect(sim.control.upload(uploadId).sha256).toBe(sha256(bytes));
}

describe("userCacheDirectory: the platform's cache directory, XDG_CACHE_HOME first", () => {
  it("follows XDG_CACHE_HOME when absolute, else the platform's place", () => {
    const home = "/home/ann";
    expect(userCacheDirectory({ env: { XDG_CACHE_HOME: "/xdg" }, platform: "linux", home })).toBe(
      "/xdg/promo-review",
    );
    expect(userCacheDirectory({ env: { XDG_CACHE_HOME: "rel" }, platform: "linux", home })).toBe(
      "/home/ann/.cache/promo-review",
    );
    expect(userCacheDirectory({ env: {}, platform: "linux", home })).toBe("/home/ann/.cache/promo-review");
    expect(userCacheDirectory({ env: {}, platform: "darwin", home })).toBe(
      "/home/ann/Library/Caches/promo-review",
    );
    expect(userCacheDirectory({ env: { LOCALAPPDATA: "/L" }, platform: "win32", home, app: "x" })).toBe(
      join("/L", "x", "Cache"),
    );
    expect(userCacheDirectory({ env: {}, platform: "win32", home })).toBe(
      join(home, "AppData", "Local", "promo-review", "Cache"),
    );
    expect(userCacheDirectory()).toMatch(/promo-review/);
  });
});

describe("fileResumeStore: one small state file per fingerprint, written atomically", () => {
  it("keeps, replaces and forgets records", async () => {
    await behavesAsAStore(fileResumeStore({ directory: join(work, "basic") }));
  });

  it("writes through a temporary file and a rename, owner-only, leaving no temporary behind", async () => {
    const directory = join(work, "atomic");
    const store = fileResumeStore({ directory });
    expect(store.directory).toBe(directory);
    await store.set("f", RECORD);
    expect(await readdir(directory)).toEqual([stateFileName("f")]);
    expect((await stat(join(directory, stateFileName("f")))).mode & 0o777).toBe(0o600);
    expect((await stat(directory)).mode & 0o777).toBe(0o700);
  });

  it("names files by a hash, so any fingerprint (any file name) is a safe file name", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (fingerprint) => {
        const store = fileResumeStore({ directory: join(work, "names") });
        expect(stateFileName(fingerprint)).toMatch(/^[0-9a-f]{64}\.json$/);
        await store.set(fingerprint, RECORD);
        expect(await store.get(fingerprint)).toEqual(RECORD);
        await store.delete(fingerprint);
      }),
      { numRuns: 25 },
    );
  });

  it("reads a damaged or foreign state file as nothing to resume", async () => {
    const directory = join(work, "damaged");
    const store = fileResumeStore({ directory });
    await store.set("f", RECORD);
    const path = join(directory, stateFileName("f"));
    await writeFile(path, "{ half a wri");
    expect(await store.get("f")).toBeUndefined();
    // A file that names another fingerprint (a hash collision, a copied cache) is not this upload's.
    await writeFile(path, JSON.stringify({ ...RECORD, fingerprint: "other" }));
    expect(await store.get("f")).toBeUndefined();
    await writeFile(path, JSON.stringify({ fingerprint: "f", uploadId: 7, maxChunkSize: 1, fileSize: 1 }));
    expect(await store.get("f")).toBeUndefined();
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ uploadId: 7 });
  });

  it("fails a write it cannot make (the directory is a file), leaving no temporary", async () => {
    const blocker = join(work, "blocker");
    await writeFile(blocker, "x");
    const store = fileResumeStore({ directory: join(blocker, "uploads") });
    await expect(store.set("f", RECORD)).rejects.toThrow();
    await expect(store.get("f")).rejects.toThrow();
    // The rename itself fails when the target is a directory: the temporary is removed.
    const dir = join(work, "rename");
    const renameStore = fileResumeStore({ directory: dir });
    await renameStore.set("g", RECORD);
    await rm(join(dir, stateFileName("g")));
    const { mkdir } = await import("node:fs/promises");
    await mkdir(join(dir, stateFileName("g")));
    await expect(renameStore.set("g", RECORD)).rejects.toThrow();
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("lets a second process finish the upload a killed one started, with the right SHA-256", async () => {
    await killedAndFinished(["file", join(work, "kill-store")]);
  });
});

describe.runIf(redisAvailable("redisResumeStore"))(
  "redisResumeStore: a fleet shares unfinished uploads",
  () => {
    const redis = useRedis(Redis);

    it("keeps, replaces and forgets records, each with a TTL", async () => {
      const client = redis.connect();
      const prefix = redis.prefix();
      await behavesAsAStore(redisResumeStore({ client, prefix, ttlSeconds: 60 }));
      const store = redisResumeStore({ client, prefix, ttlSeconds: 60 });
      await store.set("f", RECORD);
      const keys = await client.keys(`${prefix}*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]).toMatch(/:[0-9a-f]{64}$/);
      const ttl = await client.ttl(keys[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);
    });

    it("reads a damaged entry as nothing to resume", async () => {
      const client = redis.connect();
      const prefix = redis.prefix();
      const store = redisResumeStore({ client, prefix });
      await store.set("f", RECORD);
      const [key] = await client.keys(`${prefix}*`);
      await client.set(key!, "not json");
      expect(await store.get("f")).toBeUndefined();
      await client.set(key!, JSON.stringify({ uploadId: "x", maxChunkSize: "big", fileSize: 1 }));
      expect(await store.get("f")).toBeUndefined();
    });

    it("fails closed within its deadline when Redis does not answer; a failed delete is only reported", async () => {
      const { startRedis } = await import("../../../testing/redis-server.ts");
      const own = await startRedis();
      const client = redis.connect(own.port);
      const errors: unknown[] = [];
      const store = redisResumeStore({ client, timeoutMs: 300, onError: (e) => errors.push(e) });
      await store.set("f", RECORD);
      // SIGSTOP: the server holds the connection and answers nothing, the worst case for a deadline.
      process.kill(own.pid, "SIGSTOP");
      try {
        const failure = await Promise.resolve(store.get("f")).catch((e: unknown) => e);
        expect(isPromoReviewError(failure) && failure.code).toBe(RESUME_STORE_UNAVAILABLE);
        expect(isPromoReviewError(failure) && failure.retryable).toBe(true);
        await expect(store.set("f", RECORD)).rejects.toMatchObject({ code: RESUME_STORE_UNAVAILABLE });
        await store.delete("f");
        expect(errors).toHaveLength(1);
      } finally {
        process.kill(own.pid, "SIGCONT");
        await own.stop();
      }
    });

    it("lets a second process finish the upload a killed one started, with the right SHA-256", async () => {
      const port = (redis.connect().options as { port: number }).port;
      await killedAndFinished(["redis", String(port), redis.prefix()]);
    });
  },
);
