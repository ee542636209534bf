/**
 * Node-only helpers: a file path as an upload source, and a resume store in files (uploads that
 * survive their process). Kept off the main entry so browsers, Deno and Workers never load a Node
 * built-in. The transport of chunk bodies on Node, `nodeStreamFetch`, is `@promo-review/http/node`'s.
 * @packageDocumentation
 */
import { openAsBlob, type Stats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { basename } from "node:path";
import { type FileRangeReader, READ_FILE_RANGE } from "./blob-source.js";
import { MAX_PIECE } from "./pieces.js";

export { type CacheDirectoryOptions, userCacheDirectory } from "./cache-directory.js";
export { type FileResumeStoreOptions, fileResumeStore } from "./file-resume-store.js";

/** Read buffers kept for reuse per file: enough for a 64 MiB chunk. */
const POOL_LIMIT = 64;

/**
 * A file on disk as a `File` for `uploader.upload()`. `fs.openAsBlob` gives a Blob backed by the
 * file, not by memory: chunks are read from disk only as they are sent, so a 2 GiB video costs no
 * more memory than a small one. `name` and `lastModified` come from the path and the file's mtime
 * (they feed the resume fingerprint), `type` is optional. If the file changes after this call, reading
 * it fails instead of sending a mix of old and new bytes.
 *
 * The uploader reads a streamed chunk of this File with `fs` (1 MiB reads at the chunk's offsets, the
 * next one while the current is sent) rather than through the Blob API, which on Node reads 64 KiB at
 * a time and copies the pieces together again: the same bytes for about half the CPU time.
 */
export async function fileSource(path: string, options: { type?: string } = {}): Promise<File> {
  const [blob, info] = await Promise.all([openAsBlob(path, { type: options.type }), stat(path)]);
  // Wrapping a Blob in a File references its bytes; nothing is read here.
  const file = new File([blob], basename(path), {
    type: blob.type,
    lastModified: Math.trunc(info.mtimeMs),
  });
  // Read buffers are lent to a request and come back once it is over (reused by the next chunk),
  // so a large file is sent through a fixed set of buffers instead of a GiB of garbage.
  const pool: Buffer[] = [];
  const reader: FileRangeReader = (start, end, settled) => {
    const lent: Buffer[] = [];
    let finished = false; // no read into a lent buffer is pending any more
    const release = () => {
      if (!finished || !settled?.aborted) return;
      for (const buffer of lent.splice(0)) if (pool.length < POOL_LIMIT) pool.push(buffer);
    };
    settled?.addEventListener("abort", release, { once: true });
    const take = () => {
      const buffer = pool.pop() ?? Buffer.allocUnsafeSlow(MAX_PIECE);
      if (settled) lent.push(buffer);
      return buffer;
    };
    return filePieces(path, info, start, end, take, () => {
      finished = true;
      release();
    });
  };
  Object.defineProperty(file, READ_FILE_RANGE, { value: reader });
  return file;
}

/**
 * `[start, end)` of the file in pieces of at most MAX_PIECE, each read while the one before is sent,
 * through one descriptor closed when the pieces end or the consumer stops. The file's size and mtime
 * are checked before the first piece and before the last one is handed over, so a chunk is never sent
 * whole with bytes from a file that changed.
 */
async function* filePieces(
  path: string,
  opened: Stats,
  start: number,
  end: number,
  take: () => Buffer,
  onFinished: () => void,
): AsyncGenerator<Uint8Array> {
  const handle = await open(path, "r");
  let next: Promise<Uint8Array> | undefined;
  try {
    await unchanged(handle, opened);
    next = start < end ? readPiece(handle, start, end, take) : undefined;
    for (let at = start; next; ) {
      const piece = await next;
      at += piece.byteLength;
      next = at < end ? readPiece(handle, at, end, take) : undefined;
      if (!next) await unchanged(handle, opened);
      yield piece;
    }
  } finally {
    // The consumer stopped early (an aborted or failed PUT): the read ahead is not wanted.
    await next?.catch(() => {});
    await handle.close();
    onFinished();
  }
}

async function unchanged(handle: FileHandle, opened: Stats): Promise<void> {
  const now = await handle.stat();
  if (now.mtimeMs !== opened.mtimeMs || now.size !== opened.size) throw changed();
}

async function readPiece(
  handle: FileHandle,
  at: number,
  end: number,
  take: () => Buffer,
): Promise<Uint8Array> {
  const piece = take().subarray(0, Math.min(MAX_PIECE, end - at));
  const { bytesRead } = await handle.read(piece, 0, piece.byteLength, at);
  if (bytesRead !== piece.byteLength) throw changed();
  return piece;
}

function changed() {
  return new DOMException("The file changed after fileSource() opened it", "NotReadableError");
}
