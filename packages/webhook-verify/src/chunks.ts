import { utf8 } from "./bytes.js";

/** What both handlers read a body from: a stream reader's `read` or a Node request's iterator `next`. */
export type NextChunk = () => Promise<
  { done: true; value?: unknown } | { done?: false; value: Uint8Array | string }
>;

/**
 * Reads a body into one byte array, chunk by chunk from `next`; `undefined` as soon as it exceeds
 * `maxBytes` (the caller then stops its source). A single chunk is returned as is, without a copy.
 */
export async function readLimited(next: NextChunk, maxBytes: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const chunk = await next();
    if (chunk.done) break;
    const bytes = typeof chunk.value === "string" ? utf8(chunk.value) : chunk.value;
    length += bytes.length;
    if (length > maxBytes) return undefined;
    chunks.push(bytes);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Whether a declared `content-length` already exceeds the limit, so nothing needs reading. */
export function declaredTooLarge(contentLength: string | null | undefined, maxBytes: number): boolean {
  const declared = Number(contentLength);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** One megabyte: far above an `evaluation-completed` payload, far below what hurts a server. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
