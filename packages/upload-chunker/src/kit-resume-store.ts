/**
 * Resume points on the client's shared store: a store of `@promo-review/store` (Redis, Durable
 * Objects, Deno KV, memory, your own) given as `createUploader({ store })` keeps each unfinished
 * upload as a value with expiry, keyed by the SHA-256 of the file's fingerprint (fingerprints hold
 * file names, which may be long).
 */
import type { Store } from "@promo-review/store";
import { parseResumeRecord } from "./stored-record.js";
import type { ResumeStore } from "./types.js";
import { DEFAULT_RESUME_TTL_MS } from "./web-storage-store.js";

/** Whether `store` is a store of the kit (it claims and takes) rather than a {@link ResumeStore}. */
export function isKitStore(store: ResumeStore | Store): store is Store {
  return typeof (store as Store).claim === "function" && typeof (store as Store).take === "function";
}

async function keyOf(fingerprint: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(fingerprint));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Options of {@link kitResumeStore}. */
export interface KitResumeStoreOptions {
  /** How long a resume point outlives its last write (default 7 days: an upload nobody continued in a week is abandoned). */
  ttlMs?: number | undefined;
  /** Told about a failed `delete` (which does not fail the finished upload; the entry expires). */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * A {@link ResumeStore} over a store of the kit: `get` and `set` fail as the store fails (closed by
 * default, with a retryable `RESUME_STORE_UNAVAILABLE`: starting the file again while another process
 * may hold it would upload it twice); a failed `delete` is only reported (the upload is finished at
 * the service, and the entry expires).
 */
export function kitResumeStore(store: Store, options: KitResumeStoreOptions = {}): ResumeStore {
  const ttlMs = options.ttlMs ?? DEFAULT_RESUME_TTL_MS;
  return {
    get: async (fingerprint) => parseResumeRecord(await store.get(await keyOf(fingerprint))),
    async set(fingerprint, record) {
      const value = JSON.stringify({
        uploadId: record.uploadId,
        maxChunkSize: record.maxChunkSize,
        fileSize: record.fileSize,
      });
      await store.set(await keyOf(fingerprint), value, ttlMs);
    },
    async delete(fingerprint, use) {
      try {
        await store.delete(await keyOf(fingerprint));
      } catch (error) {
        if (options.onError) options.onError(error);
        else use?.logger?.warn("An upload's resume point could not be deleted; it expires", { error });
      }
    },
  };
}
