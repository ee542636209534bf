/**
 * The web storage resume store's rules, in Node with a stand-in storage and a stand-in Web Locks
 * manager (the rules of expiry, failure and locking); runtime-proof's Chromium suite proves the same
 * with the real `localStorage` and `navigator.locks`.
 */
import { isPromoReviewError } from "@promo-review/errors";
import type { Logger } from "@promo-review/http";
import type { Simulator } from "@promo-review/simulator";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkPuts, patterned, sha256, simulatorWithUploader, uploaderFor } from "../test/support/uploads.js";
import {
  DEFAULT_RESUME_TTL_MS,
  RESUME_STORE_UNAVAILABLE,
  type ResumeRecord,
  type ResumeStoreUse,
  startUpload,
  type Uploader,
  type UploaderOptions,
  type WebLocks,
  type WebStorageResumeStoreOptions,
  webStorageResumeStore,
} from "./index.js";

const CHUNK = 64 * 1024;
const DAY = 24 * 60 * 60 * 1000;
const RECORD: ResumeRecord = {
  uploadId: "5f0c8f3e-3d1a-4f0e-9b7a-2c1d0e9f8a7b",
  maxChunkSize: CHUNK,
  fileSize: 9,
};
let sim: Simulator;

beforeAll(async () => {
  ({ sim } = await simulatorWithUploader({ maxChunkSize: CHUNK }));
});
afterAll(() => sim.close());

/** A Web Storage look-alike over a Map, with `length` and `key` as `localStorage` has them. */
function mapStorage(data = new Map<string, string>()) {
  return {
    data,
    getItem: (k: string) => data.get(k) ?? null,
    setItem: (k: string, v: string) => void data.set(k, v),
    removeItem: (k: string) => void data.delete(k),
    get length() {
      return data.size;
    },
    key: (i: number) => [...data.keys()][i] ?? null,
  };
}

/** A logger that keeps what it is told. */
function keptLogger() {
  const lines: { level: string; message: string; fields: Record<string, unknown> | undefined }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void =>
      void lines.push({ level, message, fields });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

/**
 * Web Locks as a browser grants them, in one process: one holder per name, waiters in order, a waiter
 * whose signal aborts leaves the queue with the signal's reason, the lock goes when the callback settles.
 */
function processLocks(): WebLocks & { held: Set<string> } {
  const queues = new Map<string, Promise<unknown>>();
  const held = new Set<string>();
  return {
    held,
    request(name, { signal }, callback) {
      const before = queues.get(name) ?? Promise.resolve();
      const granted = new Promise<void>((grant, refuse) => {
        const onAbort = () => refuse(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        before.then(() => {
          signal?.removeEventListener("abort", onAbort);
          grant();
        });
      });
      const run = granted.then(async () => {
        held.add(name);
        try {
          return await callback();
        } finally {
          held.delete(name);
        }
      });
      // The next waiter goes once this request is over, however it ended.
      queues.set(
        name,
        Promise.all([before, run.catch(() => {})]).then(() => {}),
      );
      return run;
    },
  };
}

function uploaderWith(options: Partial<UploaderOptions>): Uploader {
  return uploaderFor(sim, options);
}

const upload = { fileName: "clip.mp4", contentType: "video/mp4" };

describe("entries expire: after 7 days by default, or ttlMs; an expired entry is ignored and removed", () => {
  it("an entry is found until its TTL has passed, then it is gone", async () => {
    let clock = 1_000_000;
    for (const options of [{}, { ttlMs: 60_000 }] as WebStorageResumeStoreOptions[]) {
      const storage = mapStorage();
      const store = webStorageResumeStore(storage, { ...options, now: () => clock });
      const ttl = options.ttlMs ?? DEFAULT_RESUME_TTL_MS;
      await store.set("fp", RECORD);
      clock += ttl;
      expect(await store.get("fp")).toEqual(RECORD);
      clock += 1;
      expect(await store.get("fp")).toBeUndefined();
      expect(storage.data.size).toBe(0);
    }
    expect(DEFAULT_RESUME_TTL_MS).toBe(7 * DAY);
  });

  it("an entry without a write time (or a damaged one) means nothing to resume", async () => {
    const storage = mapStorage();
    const store = webStorageResumeStore(storage, "p:");
    storage.setItem("p:old", JSON.stringify(RECORD));
    storage.setItem("p:bad", "{not json");
    expect(await store.get("old")).toBeUndefined();
    expect(await store.get("bad")).toBeUndefined();
    expect(storage.data.has("p:old")).toBe(false);
  });

  it("a TTL that is not a positive number is refused", () => {
    for (const ttlMs of [0, -1, Number.NaN]) {
      expect(() => webStorageResumeStore(mapStorage(), { ttlMs })).toThrow(/ttlMs/);
    }
  });

  it("a reloaded page after the TTL starts the upload again", async () => {
    let clock = Date.now();
    const storage = mapStorage();
    const page = () =>
      uploaderWith({ store: webStorageResumeStore(storage, { ttlMs: DAY, now: () => clock }) });
    const bytes = patterned(3 * CHUNK, 3);
    const first = startUpload(page(), new Blob([bytes as BlobPart]), upload);
    first.on("chunk", (c) => c.receivedBytes >= CHUNK && first.abort());
    await first.done.catch(() => {});
    clock += DAY + 1;
    const result = await page().upload(new Blob([bytes as BlobPart]), upload);
    expect(result.uploadId).not.toBe(first.uploadId);
    expect(result.resumedFrom).toBe(0);
    expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
  });
});

describe("abandoned entries are swept, a bounded number of keys per lookup", () => {
  it("each lookup removes expired entries of this store among the next 8 keys, and nothing else", async () => {
    let clock = 0;
    const storage = mapStorage();
    const store = webStorageResumeStore(storage, { prefix: "p:", ttlMs: 1000, now: () => clock });
    for (let i = 0; i < 20; i++) await store.set(`old-${i}`, RECORD);
    storage.setItem("other-app", JSON.stringify({ ...RECORD, at: -1e12 }));
    clock = 5000;
    await store.set("fresh", RECORD);
    let removed = storage.data.size;
    await store.get("missing");
    // At most 8 keys looked at: at most 8 removed by one call.
    expect(removed - storage.data.size).toBeGreaterThan(0);
    expect(removed - storage.data.size).toBeLessThanOrEqual(8);
    removed = storage.data.size;
    for (let i = 0; i < 10; i++) await store.get("missing");
    expect([...storage.data.keys()].sort()).toEqual(["other-app", "p:fresh"]);
  });

  it("a storage without length and key is not swept, and still serves", async () => {
    const data = new Map<string, string>();
    const store = webStorageResumeStore({
      getItem: (k) => data.get(k) ?? null,
      setItem: (k, v) => void data.set(k, v),
      removeItem: (k) => void data.delete(k),
    });
    await store.set("fp", RECORD);
    expect(await store.get("fp")).toEqual(RECORD);
  });
});

describe("the store's round trip: what is set is what is got, for any fingerprint and record", () => {
  it("holds for arbitrary fingerprints and records, and delete forgets", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.record({
          uploadId: fc.uuid(),
          maxChunkSize: fc.integer({ min: 1, max: 2 ** 31 }),
          fileSize: fc.maxSafeNat(),
        }),
        async (fingerprint, record) => {
          const store = webStorageResumeStore(mapStorage());
          await store.set(fingerprint, record);
          expect(await store.get(fingerprint)).toEqual(record);
          await store.delete(fingerprint);
          expect(await store.get(fingerprint)).toBeUndefined();
        },
      ),
    );
  });
});

describe("a full, refusing or absent storage never fails an upload: resuming is off, said once", () => {
  const quota = () => new DOMException("The quota has been exceeded.", "QuotaExceededError");
  const security = () => new DOMException("The operation is insecure.", "SecurityError");
  const full = {
    ...mapStorage(),
    setItem: () => {
      throw quota();
    },
  };
  const refusing = {
    getItem: () => {
      throw security();
    },
    setItem: () => {
      throw security();
    },
    removeItem: () => {
      throw security();
    },
    get length(): number {
      throw security();
    },
  };

  for (const [name, storage, shown] of [
    ["full (QuotaExceededError)", full, /QuotaExceededError/],
    ["refusing every call (SecurityError)", refusing, /SecurityError/],
    ["absent (no localStorage in this runtime)", undefined, /no Web Storage/],
    ["null", null, /no Web Storage/],
  ] as const) {
    it(`${name}: two uploads complete, the logger hears it once at warn, typed`, async () => {
      const { logger, lines } = keptLogger();
      const uploader = uploaderWith({ store: webStorageResumeStore(storage), logger });
      for (const seed of [1, 2]) {
        const bytes = patterned(2 * CHUNK + 5, seed);
        const result = await uploader.upload(new Blob([bytes as BlobPart]), upload);
        expect(result.status).toBe("completed");
        expect(sim.control.upload(result.uploadId).sha256).toBe(sha256(bytes));
      }
      const warnings = lines.filter((l) => l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(/^Resuming uploads is off: web storage refused/);
      expect(warnings[0]!.message).toMatch(shown);
      expect(warnings[0]!.fields?.["code"]).toBe(RESUME_STORE_UNAVAILABLE);
      const error = warnings[0]!.fields?.["error"];
      expect(isPromoReviewError(error) && error.code).toBe(RESUME_STORE_UNAVAILABLE);
    });
  }

  it("without a logger it stays silent, and a logger that throws changes nothing", async () => {
    const throwing: Logger = {
      debug() {},
      info() {},
      warn: () => {
        throw new Error("broken logger");
      },
      error() {},
    };
    for (const logger of [undefined, throwing]) {
      const uploader = uploaderWith({
        store: webStorageResumeStore(refusing),
        ...(logger ? { logger } : {}),
      });
      const result = await uploader.upload(new Blob([patterned(CHUNK, 9) as BlobPart]), upload);
      expect(result.status).toBe("completed");
    }
  });
});

describe("two uploads of the same file at once (two tabs) send its bytes once, through Web Locks", () => {
  it("the second waits for the first, then finds it done: one upload id, the file's bytes sent once", async () => {
    const storage = mapStorage();
    const locks = processLocks();
    const tab = () => uploaderWith({ store: webStorageResumeStore(storage, { locks }) });
    const bytes = patterned(6 * CHUNK + 17, 21);
    const file = () => new File([bytes as BlobPart], "clip.mp4", { lastModified: 5 });
    const [a, b] = await Promise.all([tab().upload(file(), upload), tab().upload(file(), upload)]);
    expect(b.uploadId).toBe(a.uploadId);
    expect([a.status, b.status]).toEqual(["completed", "completed"]);
    // Whichever tab fingerprinted the file first took the lock and sent it; the other adopted it whole.
    expect([a.resumedFrom, b.resumedFrom].sort((x, y) => x - y)).toEqual([0, bytes.length]);
    const sent = chunkPuts(sim, a.uploadId).reduce((sum, put) => sum + rangeLength(put.range), 0);
    expect(sent).toBe(bytes.length);
    expect(sim.control.upload(a.uploadId).sha256).toBe(sha256(bytes));
    expect(locks.held.size).toBe(0);
  });

  it("the same file uploaded later (nobody waiting) is a new upload; the done mark is gone after a minute", async () => {
    let clock = Date.now();
    const storage = mapStorage();
    const locks = processLocks();
    const store = webStorageResumeStore(storage, { locks, now: () => clock });
    const bytes = patterned(2 * CHUNK, 22);
    const first = await uploaderWith({ store }).upload(new Blob([bytes as BlobPart]), upload);
    expect(storage.data.size).toBe(1); // the done mark, for a tab that was waiting
    clock += 1;
    const later = await uploaderWith({ store }).upload(new Blob([bytes as BlobPart]), upload);
    expect(later.uploadId).not.toBe(first.uploadId);
    expect(later.resumedFrom).toBe(0);
    clock += 60_001;
    await store.get("anything");
    expect(storage.data.size).toBe(0);
  });

  it("a tab that stopped half-way lets go of the lock; the waiting one continues from the service's offset", async () => {
    const storage = mapStorage();
    const locks = processLocks();
    const tab = () => uploaderWith({ store: webStorageResumeStore(storage, { locks }) });
    const bytes = patterned(5 * CHUNK, 23);
    const first = startUpload(tab(), new Blob([bytes as BlobPart]), upload);
    first.on("chunk", (c) => c.receivedBytes >= 2 * CHUNK && first.abort());
    // The second tab opens the file only once the first holds the lock (its first chunk is in):
    // which of two tabs that start together fingerprints first, and so locks first, is not promised.
    await new Promise<void>((holding) => first.once("chunk", () => holding()));
    expect(locks.held.size).toBe(1);
    const second = tab().upload(new Blob([bytes as BlobPart]), upload);
    await first.done.catch(() => {});
    const result = await second;
    expect(result.uploadId).toBe(first.uploadId);
    expect(result.resumedFrom).toBe(2 * CHUNK);
    const sent = chunkPuts(sim, result.uploadId).reduce((sum, put) => sum + rangeLength(put.range), 0);
    expect(sent).toBe(bytes.length);
    expect(locks.held.size).toBe(0);
  });

  it("waiting for the lock ends with the upload's signal, with its reason", async () => {
    const storage = mapStorage();
    const locks = processLocks();
    const store = webStorageResumeStore(storage, { locks });
    const name = "promo-review-upload:fp";
    let release!: () => void;
    const holding = locks.request(name, {}, () => new Promise<void>((ok) => (release = ok)));
    const controller = new AbortController();
    const waiting = store.exclusive!("fp", controller.signal, async () => "ran");
    const reason = new Error("stop waiting");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    release();
    await holding;
    // Released on the error path too: the next one gets it at once.
    await expect(
      store.exclusive!("fp", new AbortController().signal, () => Promise.reject(new Error("x"))),
    ).rejects.toThrow("x");
    expect(await store.exclusive!("fp", new AbortController().signal, async () => "ran")).toBe("ran");
  });

  it("locks that refuse (an opaque origin) or none at all: the upload runs unlocked", async () => {
    const refused: WebLocks = { request: () => Promise.reject(new DOMException("opaque", "SecurityError")) };
    for (const locks of [refused, null]) {
      const store = webStorageResumeStore(mapStorage(), { locks });
      const use: ResumeStoreUse = { signal: new AbortController().signal };
      expect(await store.exclusive!("fp", use.signal!, async () => "ran")).toBe("ran");
      await store.set("fp", RECORD, use);
      await store.delete("fp", use);
      expect(await store.get("fp", use)).toBeUndefined();
    }
  });
});

/** Bytes covered by a `Content-Range: bytes a-b/n` value. */
function rangeLength(range: string): number {
  const [, a, b] = /bytes (\d+)-(\d+)\//.exec(range) ?? [];
  return Number(b) - Number(a) + 1;
}
