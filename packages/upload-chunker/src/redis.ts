/**
 * A resume store in Redis, so that one worker of a fleet can finish an upload another started (the
 * other crashed, was scaled down or redeployed). On a sub-path export so that the main entry stays
 * free of it; it imports no Redis client: pass an ioredis client (or anything with `get`/`set`/`del`).
 * @packageDocumentation
 */
import { PromoReviewError } from "@promo-review/errors";
import { deadlineSignal } from "@promo-review/http";
import { RESUME_STORE_UNAVAILABLE } from "./resume-store.js";
import { parseResumeRecord } from "./stored-record.js";
import type { ResumeStore } from "./types.js";

/** The part of a Redis client the store uses; an ioredis `Redis` or `Cluster` satisfies it. */
export interface RedisResumeClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, expiryMode: "EX", seconds: number): Promise<unknown>;
  del(key: string): Promise<unknown>;
}

/** Options of {@link redisResumeStore}. */
export interface RedisResumeStoreOptions {
  /** A connected client, e.g. `new Redis(url)` from ioredis. The store never closes it. */
  client: RedisResumeClient;
  /** Prefix of every key the store writes. Default `"promo-review:upload:"`. */
  prefix?: string;
  /**
   * How long an entry outlives its last write. Default 7 days: an upload nobody continued in a week
   * is most likely abandoned, and the entry must not stay forever.
   */
  ttlSeconds?: number;
  /** How long to wait for Redis per operation. Default 2000 ms. */
  timeoutMs?: number;
  /** Told about a failed `delete` (which does not fail the finished upload; the entry expires). */
  onError?: (error: unknown) => void;
}

export { RESUME_STORE_UNAVAILABLE };

/** The SHA-256 of a fingerprint, as the key: fingerprints hold file names, which may be long. */
async function keyOf(prefix: string, fingerprint: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(fingerprint));
  return prefix + Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A store in Redis: one key per fingerprint, JSON, with a TTL renewed at every write. Every operation
 * has its own deadline. A `get` or `set` that fails or times out fails closed with a retryable
 * `RESUME_STORE_UNAVAILABLE` error: starting the file again as a new upload while another worker may
 * hold it would upload it twice.
 */
export function redisResumeStore(options: RedisResumeStoreOptions): ResumeStore {
  const prefix = options.prefix ?? "promo-review:upload:";
  const ttl = options.ttlSeconds ?? 7 * 24 * 60 * 60;
  const timeoutMs = options.timeoutMs ?? 2000;
  const { client } = options;

  async function withDeadline<T>(what: string, operation: () => Promise<T>): Promise<T> {
    const deadline = deadlineSignal(timeoutMs);
    try {
      return await new Promise<T>((resolve, reject) => {
        deadline.signal.addEventListener("abort", () => reject(deadline.signal.reason), { once: true });
        operation().then(resolve, reject);
      });
    } catch (cause) {
      throw new PromoReviewError({
        code: RESUME_STORE_UNAVAILABLE,
        message: `The Redis resume store could not ${what} (an error, or no answer within ${timeoutMs} ms)`,
        retryable: true,
        cause,
      });
    } finally {
      deadline.clear();
    }
  }

  return {
    async get(fingerprint) {
      const key = await keyOf(prefix, fingerprint);
      return parseResumeRecord(await withDeadline("look the upload up", () => client.get(key)));
    },
    async set(fingerprint, record) {
      const key = await keyOf(prefix, fingerprint);
      const value = JSON.stringify({
        uploadId: record.uploadId,
        maxChunkSize: record.maxChunkSize,
        fileSize: record.fileSize,
      });
      await withDeadline("store the upload", () => client.set(key, value, "EX", ttl));
    },
    async delete(fingerprint) {
      const key = await keyOf(prefix, fingerprint);
      try {
        await withDeadline("forget the upload", () => client.del(key));
      } catch (error) {
        // The upload is finished at the service; a stale entry only makes a later run find it
        // completed, and it expires with its TTL.
        options.onError?.(error);
      }
    },
  };
}
