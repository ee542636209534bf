import { type NextPiece, readCapped } from "@promo-review/errors/internal";

/**
 * Reads a body into one byte array, piece by piece from `next` (a stream reader's `read` or a Node
 * request's iterator `next`); `undefined` when it exceeds `maxBytes` (the caller then stops its
 * source). The loop is errors' `readCapped`, the one the HTTP client reads answers with.
 */
export async function readLimited(next: NextPiece, maxBytes: number): Promise<Uint8Array | undefined> {
  const { bytes, complete } = await readCapped(next, maxBytes);
  return complete ? bytes : undefined;
}

/** Whether a declared `content-length` already exceeds the limit, so nothing needs reading. */
export function declaredTooLarge(contentLength: string | null | undefined, maxBytes: number): boolean {
  const declared = Number(contentLength);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** One megabyte: far above an `evaluation-completed` payload, far below what hurts a server. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
