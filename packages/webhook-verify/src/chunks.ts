import { utf8 } from "./bytes.js";

/** Appends chunks into one byte array, stopping once `maxBytes` is exceeded (then returns `undefined`). */
export class ChunkCollector {
  readonly #maxBytes: number;
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Adds a chunk; returns false once the limit is passed (the caller stops reading). */
  add(chunk: Uint8Array | string): boolean {
    const bytes = typeof chunk === "string" ? utf8(chunk) : chunk;
    this.#length += bytes.length;
    if (this.#length > this.#maxBytes) return false;
    this.#chunks.push(bytes);
    return true;
  }

  /** The bytes collected; a single chunk is returned as is, without a copy. */
  bytes(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0]!;
    const out = new Uint8Array(this.#length);
    let offset = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}

/** Whether a declared `content-length` already exceeds the limit, so nothing needs reading. */
export function declaredTooLarge(contentLength: string | null | undefined, maxBytes: number): boolean {
  const declared = Number(contentLength);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** One megabyte: far above an `evaluation-completed` payload, far below what hurts a server. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
