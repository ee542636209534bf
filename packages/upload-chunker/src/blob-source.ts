/**
 * A Blob or File as a source: reachable at any offset and never copied. A chunk is a `slice()`, sent
 * whole or streamed from its backing store (memory, or the file for `fs.openAsBlob` and `fileSource`).
 */
import type { PromoReviewError } from "@promo-review/errors";
import { guarded, MAX_PIECE } from "./pieces.js";
import type { ByteSource } from "./types.js";

/**
 * A File made by `fileSource` (`./node`) carries, under this key, a function reading `[start, end)` of
 * the file with the runtime's file API into pieces of at most {@link MAX_PIECE}: on Node that costs a
 * fraction of reading the same bytes through the Blob (64 KiB reads, then a concatenated copy).
 */
export const READ_FILE_RANGE = Symbol.for("@promo-review/upload-chunker.readFileRange");

/** The reader a File made by `fileSource` carries under {@link READ_FILE_RANGE}. */
export type FileRangeReader = (
  start: number,
  end: number,
  settled?: AbortSignal,
) => AsyncGenerator<Uint8Array>;

/** Whether `value` is a Blob (a File included), in a runtime that has them. */
export function isBlob(value: unknown): value is Blob {
  return typeof Blob !== "undefined" && value instanceof Blob;
}

/** Opens a Blob or File. */
export function blobSource(blob: Blob): ByteSource {
  let failure: PromoReviewError | undefined;
  const fail = (error: PromoReviewError) => {
    failure ??= error;
    return failure;
  };
  return {
    size: blob.size,
    seekable: true,
    floor: 0,
    file: fileOf(blob),
    load: async () => {},
    prefetch: () => {},
    range(start, end) {
      const slice = blob.slice(start, end);
      const readFile = (blob as { [READ_FILE_RANGE]?: FileRangeReader })[READ_FILE_RANGE];
      return {
        whole: () => slice,
        pieces: (settled) => guarded(readFile ? readFile(start, end, settled) : blobPieces(slice), fail),
      };
    },
    release: () => {},
    close: async () => {},
    get failure() {
      return failure;
    },
  };
}

/** A File's name and `lastModified`, which feed the resume fingerprint; `undefined` for a plain Blob. */
function fileOf(blob: Blob): ByteSource["file"] {
  const { name, lastModified } = blob as Partial<File>;
  return typeof name === "string" && typeof lastModified === "number" ? { name, lastModified } : undefined;
}

/**
 * A Blob's bytes in pieces of {@link MAX_PIECE}, each read from the backing store (memory or, for
 * `fs.openAsBlob`, the file) while the one before is being sent: reading and sending overlap, and at
 * most two pieces are in memory. `Blob.stream()` would give 64 KiB pieces, which costs a streamed
 * request body on Node several times the work per byte.
 */
async function* blobPieces(blob: Blob): AsyncGenerator<Uint8Array> {
  const read = (at: number) => blob.slice(at, Math.min(blob.size, at + MAX_PIECE)).arrayBuffer();
  let next: Promise<ArrayBuffer> | undefined = blob.size > 0 ? read(0) : undefined;
  try {
    for (let at = 0; next; at += MAX_PIECE) {
      const current = await next;
      next = at + MAX_PIECE < blob.size ? read(at + MAX_PIECE) : undefined;
      yield new Uint8Array(current);
    }
  } finally {
    // The consumer stopped early (an aborted or failed PUT): the read ahead is not wanted.
    next?.catch(() => {});
  }
}
