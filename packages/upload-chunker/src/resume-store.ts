/**
 * Remembering unfinished uploads, so that a restarted process or a reloaded page continues an upload
 * instead of starting it again. The store maps a fingerprint of the file to the upload id (and the
 * chunk size the service gave); the file service stays the source of truth for how far it got.
 */
import type { ByteSource, ResumeRecord, ResumeStore } from "./types.js";

/**
 * The code of the error a store raises (Redis) or logs (web storage) when it cannot reach what keeps
 * its entries.
 */
export const RESUME_STORE_UNAVAILABLE = "RESUME_STORE_UNAVAILABLE";

/** A store in this process's memory (the default): resumes within one process only. */
export function memoryResumeStore(): ResumeStore {
  const records = new Map<string, ResumeRecord>();
  return {
    get: (fingerprint) => {
      const record = records.get(fingerprint);
      return record && { ...record };
    },
    set: (fingerprint, record) => {
      records.set(fingerprint, { ...record });
    },
    delete: (fingerprint) => {
      records.delete(fingerprint);
    },
  };
}

/** Bytes from the start of a file that go into its fingerprint. */
export const FINGERPRINT_BYTES = 64 * 1024;

/**
 * The fingerprint of a file: its name, content type, size, `lastModified` when the source is a File,
 * and the SHA-256 of its first 64 KiB (so two different files of the same name and size do not
 * collide, and a stream's fingerprint can be taken from bytes read anyway). The whole file is never
 * hashed: that would read it twice.
 */
export async function fingerprintOf(
  source: ByteSource,
  meta: { fileName: string; contentType: string },
  signal?: AbortSignal,
): Promise<string> {
  const head = Math.min(FINGERPRINT_BYTES, source.size);
  await source.load(0, head, signal);
  const bytes = new Uint8Array(head);
  let at = 0;
  const pieces = source.range(0, head).pieces();
  for (let step = await pieces.next(); !step.done; step = await pieces.next()) {
    bytes.set(step.value, at);
    at += step.value.byteLength;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  const modified = source.file?.lastModified ?? "";
  return `${meta.fileName}|${meta.contentType}|${source.size}|${modified}|${hex}`;
}
