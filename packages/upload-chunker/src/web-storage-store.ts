/**
 * A resume store over Web Storage (`localStorage`), so a reloaded page continues its uploads. Unlike
 * tus-js-client's browser store, entries expire, a full or refused storage costs only the resume (never
 * the upload), and two tabs given the same file send it once (Web Locks).
 */
import { PromoReviewError } from "@promo-review/errors";
import { localValidationError } from "@promo-review/errors/internal";
import { RESUME_STORE_UNAVAILABLE } from "./resume-store.js";
import type { KeyValueStorage, ResumeRecord, ResumeStore, ResumeStoreUse, WebLocks } from "./types.js";

/** How long a web storage entry outlives its last write, by default: 7 days, as in Redis. */
export const DEFAULT_RESUME_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * How long the mark of a finished upload is kept for a tab that waited on it. The waiter gets the lock
 * the moment the finisher lets go, so a minute is plenty; the sweep removes older marks.
 */
const DONE_KEPT_MS = 60_000;

/** Keys the sweep looks at per `get`: the work per call stays bounded however full the storage is. */
const SWEEP_KEYS = 8;

/** Options of {@link webStorageResumeStore}. */
export interface WebStorageResumeStoreOptions {
  /** Prefix of every key (and lock name) the store writes. Default `"promo-review-upload:"`. */
  prefix?: string | undefined;
  /** How long an entry outlives its last write, in ms. Default 7 days ({@link DEFAULT_RESUME_TTL_MS}). */
  ttlMs?: number | undefined;
  /**
   * The Web Locks to keep two tabs from sending one file twice. Default `navigator.locks` where the
   * runtime has it; `null` turns locking off.
   */
  locks?: WebLocks | null | undefined;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: (() => number) | undefined;
}

/** An entry as kept: the record, when it was written (`at`), and when its upload was done (`done`). */
interface Entry extends ResumeRecord {
  at: number;
  done?: number | undefined;
}

/**
 * A store over Web Storage, so a reloaded page picks up its uploads: `webStorageResumeStore()` uses
 * `localStorage` (read at each call, so a page where touching it throws still uploads). Entries are
 * JSON under `prefix + fingerprint`; one that is damaged or older than `ttlMs` is ignored and removed,
 * and each lookup sweeps a few other expired ones. A storage that throws (full, refused, absent) only
 * turns resuming off: the upload goes on, and the uploader's `logger` is told once, at `warn`, with a
 * `RESUME_STORE_UNAVAILABLE` error. With Web Locks, an upload holds a lock on its fingerprint until its
 * last byte is stored, and then marks the entry done rather than remove it, so a second tab given the
 * same file meanwhile waits and continues that upload (nothing is sent twice).
 */
export function webStorageResumeStore(
  storage?: KeyValueStorage | null,
  options: WebStorageResumeStoreOptions | string = {},
): ResumeStore {
  const given = typeof options === "string" ? { prefix: options } : options;
  const { prefix = "promo-review-upload:", ttlMs = DEFAULT_RESUME_TTL_MS, now = Date.now } = given;
  if (!(ttlMs > 0)) {
    throw localValidationError(
      [{ field: "ttlMs", message: "must be a positive number of milliseconds" }],
      "The web storage resume store configuration is invalid",
    );
  }
  const locks = given.locks === undefined ? globalThis.navigator?.locks : given.locks;
  // Keyed by the upload's signal: one entry per upload that asked for the lock, and since when.
  const askedAt = new WeakMap<AbortSignal, number>();
  const told = new WeakSet<object>();
  let cursor = 0;

  /** Runs `operation` on the storage; when that throws, resuming is off for this call, said once per logger. */
  function attempt<T>(use: ResumeStoreUse | undefined, operation: (s: KeyValueStorage) => T): T | undefined {
    try {
      // Read here, not at creation: touching `localStorage` itself throws where a page may not use it.
      const s = storage === undefined ? globalThis.localStorage : storage;
      if (!s) throw new TypeError("this runtime has no Web Storage");
      return operation(s);
    } catch (cause) {
      const logger = use?.logger;
      if (logger && !told.has(logger)) {
        told.add(logger);
        const error = new PromoReviewError({
          code: RESUME_STORE_UNAVAILABLE,
          message: `Resuming uploads is off: web storage refused an entry (${String(cause)}); uploads go on but cannot continue after a reload`,
          cause,
        });
        try {
          logger.warn(error.message, { code: error.code, error });
        } catch {
          // A logger that throws has nowhere better to report to.
        }
      }
      return undefined;
    }
  }

  function parse(raw: string | null | undefined): Entry | undefined {
    try {
      const e = JSON.parse(raw ?? "null") as Partial<Entry> | null;
      if (
        typeof e?.uploadId === "string" &&
        Number.isSafeInteger(e.maxChunkSize) &&
        Number.isSafeInteger(e.fileSize)
      ) {
        return e as Entry;
      }
    } catch {
      // A damaged entry means "nothing to resume", never a failed upload.
    }
    return undefined;
  }

  /** Expired: older than the TTL (an entry without `at` is from before entries expired), or a stale done mark. */
  function expired(entry: Entry, t: number): boolean {
    return !(t - entry.at <= ttlMs) || (entry.done !== undefined && t - entry.done > DONE_KEPT_MS);
  }

  /** Looks at the next few keys and removes this store's expired entries among them. */
  function sweep(use: ResumeStoreUse | undefined): void {
    attempt(use, (s) => {
      const length = s.length ?? 0;
      const t = now();
      const stale: string[] = [];
      for (let i = 0; i < Math.min(SWEEP_KEYS, length); i++) {
        const key = s.key?.((cursor + i) % length);
        if (key?.startsWith(prefix)) {
          const entry = parse(s.getItem(key));
          if (entry && expired(entry, t)) stale.push(key);
        }
      }
      cursor += SWEEP_KEYS;
      for (const key of stale) s.removeItem(key);
    });
  }

  const write = (use: ResumeStoreUse | undefined, key: string, entry: Entry) =>
    attempt(use, (s) => s.setItem(key, JSON.stringify(entry)));

  return {
    get(fingerprint, use) {
      sweep(use);
      const key = prefix + fingerprint;
      const entry = parse(attempt(use, (s) => s.getItem(key)));
      if (!entry) return undefined;
      const since = use?.signal && askedAt.get(use.signal);
      // A done mark serves only an upload that asked for the lock before that upload was done.
      if (
        expired(entry, now()) ||
        (entry.done !== undefined && !(since !== undefined && entry.done >= since))
      ) {
        attempt(use, (s) => s.removeItem(key));
        return undefined;
      }
      return { uploadId: entry.uploadId, maxChunkSize: entry.maxChunkSize, fileSize: entry.fileSize };
    },
    set(fingerprint, { uploadId, maxChunkSize, fileSize }, use) {
      write(use, prefix + fingerprint, { uploadId, maxChunkSize, fileSize, at: now() });
    },
    delete(fingerprint, use) {
      const key = prefix + fingerprint;
      const entry = use?.signal && askedAt.has(use.signal) && parse(attempt(use, (s) => s.getItem(key)));
      // Under the lock another tab may be waiting for this file: it finds the upload done.
      if (entry) write(use, key, { ...entry, done: now() });
      else attempt(use, (s) => s.removeItem(key));
    },
    async exclusive(fingerprint, signal, task) {
      if (!locks) return task();
      askedAt.set(signal, now());
      let granted = false;
      try {
        return await locks.request(prefix + fingerprint, { signal }, () => {
          granted = true;
          return task();
        });
      } catch (error) {
        if (granted) throw error;
        if (signal.aborted) throw signal.reason;
        // Locks refused (an opaque origin): upload without one, as where Web Locks are absent.
        askedAt.delete(signal);
        return task();
      } finally {
        askedAt.delete(signal);
      }
    },
  };
}
