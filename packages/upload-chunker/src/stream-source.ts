/**
 * A web `ReadableStream` or an `AsyncIterable` of bytes as a source: read once, front to back. The
 * bytes of the chunk being sent and at most the read-ahead bytes after it are kept, copied into reused
 * slabs of MAX_PIECE bytes, so a failed chunk can be sent again from its start, and nothing older is
 * kept. The request body is then a stream of views of those slabs, never a copy of the chunk.
 */
import { kindOf, localValidationError } from "@promo-review/errors/internal";
import { raceAbort } from "./abort.js";
import { bytesOf, MAX_PIECE, sourceFailure, unsupportedSource } from "./pieces.js";
import type { ByteSource, StreamSource } from "./types.js";

/**
 * A web `ReadableStream` or an `AsyncIterable` of bytes (a Node `Readable` is one) as an upload
 * source: `uploader.upload(fromStream(stream), { size, fileName, contentType })`. It is read once,
 * front to back, when the upload starts; the chunk being sent and at most `readAheadBytes` after it
 * are kept, so a failed chunk can be sent again.
 */
export function fromStream(stream: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): StreamSource {
  if (isReadableStream(stream)) return { open: (size) => readableStreamSource(stream, size) };
  if (isAsyncIterable(stream)) return { open: (size) => asyncIterableSource(stream, size) };
  throw unsupportedSource(`must be a ReadableStream or AsyncIterable of bytes, not ${kindOf(stream)}`);
}

/** Whether `value` is a web `ReadableStream`, in a runtime that has them. */
export function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== "undefined" && value instanceof ReadableStream;
}

/** Whether `value` can be read with `for await`. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/** Opens a web stream of `size` bytes (its reader is taken now, and cancelled on `close`). */
export function readableStreamSource(stream: ReadableStream<Uint8Array>, size: number): ByteSource {
  const reader = stream.getReader();
  return streamSource(
    () => reader.read(),
    (reason) => reader.cancel(reason),
    size,
  );
}

/** Opens an async iterable of `size` bytes (ended early through its `return` on `close`). */
export function asyncIterableSource(iterable: AsyncIterable<Uint8Array>, size: number): ByteSource {
  const iterator = iterable[Symbol.asyncIterator]();
  return streamSource(
    () => iterator.next(),
    async (reason) => {
      await iterator.return?.(reason);
    },
    size,
  );
}

/** A fixed-size buffer for the stream's bytes from `start`, filled up to `start + length`. */
interface Slab {
  start: number;
  buffer: Uint8Array;
  length: number;
}

/**
 * A stream source: the bytes `reader` reads, copied into `slabs`, and the ranges still reachable in
 * them. A range is sent from the bytes held, so a failed chunk can be sent again while its start is
 * at or after `floor`, and never once released.
 */
function streamSource(
  next: () => Promise<IteratorResult<Uint8Array> | ReadableStreamReadResult<Uint8Array>>,
  cancel: (reason?: unknown) => Promise<void>,
  size: number,
): ByteSource {
  const slabs: Slab[] = [];
  const spare: Uint8Array[] = []; // released slabs' buffers, reused
  let floor = 0; // bytes before this are released (and dropped as soon as they are read)
  let closed = false;
  const dropReleased = () => {
    while (slabs.length > 0 && slabs[0]!.start + slabs[0]!.length <= floor) spare.push(slabs.shift()!.buffer);
  };
  const reader = streamReader(next, size, (bytes, at) => {
    copyInto(slabs, spare, bytes, at);
    dropReleased();
  });
  const reachable = (start: number) => {
    if (start < floor) throw releasedError(start, floor);
  };

  /** The range's pieces, each waiting for its bytes: a body can start before its chunk is read. */
  async function* pieces(start: number, end: number): AsyncGenerator<Uint8Array> {
    for (let at = start; at < end; ) {
      const stop = Math.min(end, (Math.floor(at / MAX_PIECE) + 1) * MAX_PIECE);
      await reader.want(stop);
      if (closed) throw sizeMismatch("was closed before it was read");
      reachable(at);
      // The piece lies in one slab: a view of it, never a copy.
      const slab = slabs[Math.floor(at / MAX_PIECE) - slabs[0]!.start / MAX_PIECE]!;
      yield slab.buffer.subarray(at - slab.start, stop - slab.start);
      at = stop;
    }
  }

  return {
    size,
    seekable: false,
    get floor() {
      return floor;
    },
    get failure() {
      return reader.failure;
    },
    async load(start, end, signal) {
      reachable(start);
      await raceAbort(reader.want(end), signal);
    },
    prefetch(end) {
      reader.want(end).catch(() => {});
    },
    range(start, end) {
      reachable(start);
      return { pieces: () => pieces(start, end), whole: () => blobOf(slabs, start, end) };
    },
    release(offset) {
      floor = Math.max(floor, offset);
      dropReleased();
    },
    async close(reason) {
      if (closed) return;
      closed = true;
      slabs.length = 0;
      spare.length = 0;
      reader.close();
      await cancel(reason).catch(() => {});
    },
  };
}

/*
 * The slabs: a stream's pieces are copied into slabs of MAX_PIECE bytes (starting at multiples of
 * MAX_PIECE) that are reused once released. The request body then always moves in MAX_PIECE pieces
 * whatever the stream delivers (tiny pieces cost Node's fetch dearly), and the memory held is a fixed
 * set of buffers, not a churn of garbage.
 */

/** Copies `bytes`, the stream's bytes from offset `at` on, into the slabs (reusing a spare buffer). */
function copyInto(slabs: Slab[], spare: Uint8Array[], bytes: Uint8Array, at: number): void {
  for (let done = 0; done < bytes.byteLength; ) {
    let last = slabs.at(-1);
    if (!last || last.length === MAX_PIECE) {
      // A new slab starts at a multiple of MAX_PIECE even when the bytes before `at` were released
      // with the slab that held them: its head is then never filled, and never read (it is before
      // `floor`), and every piece still lies in one slab.
      const offset = at + done;
      const start = offset - (offset % MAX_PIECE);
      last = { start, buffer: spare.pop() ?? new Uint8Array(MAX_PIECE), length: offset - start };
      slabs.push(last);
    }
    const n = Math.min(MAX_PIECE - last.length, bytes.byteLength - done);
    last.buffer.set(bytes.subarray(done, done + n), last.length);
    last.length += n;
    done += n;
  }
}

/**
 * The bytes `[start, end)` as one Blob: only for runtimes without request streams (browsers on
 * HTTP/1.1), one copy of the chunk, of bytes already loaded.
 */
function blobOf(slabs: Slab[], start: number, end: number): Blob {
  return new Blob(
    slabs
      .filter((slab) => slab.start + slab.length > start && slab.start < end)
      .map((slab) =>
        slab.buffer.subarray(Math.max(0, start - slab.start), Math.min(slab.length, end - slab.start)),
      ) as BlobPart[],
  );
}

/**
 * Reads a stream of `size` bytes into `append`, on demand. One read runs at a time and reads until
 * `loaded` reaches `target` (the furthest end wanted), never further: of a piece the stream gave,
 * only the bytes up to `target` are copied and the rest waits in `pending` (the stream's own buffer).
 */
function streamReader(
  next: () => Promise<IteratorResult<Uint8Array> | ReadableStreamReadResult<Uint8Array>>,
  size: number,
  append: (bytes: Uint8Array, at: number) => void,
) {
  const waiters = new Set<() => void>();
  let pending: Uint8Array | undefined;
  let loaded = 0; // offset just after the last byte copied
  let target = 0; // the reader stops once `loaded` reaches this
  let ended = false; // the stream ended exactly at `size`
  let closed = false;
  let failure: unknown;
  let reading = false;

  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };

  async function read(): Promise<void> {
    reading = true;
    try {
      // Past the declared size the stream must end: the last chunk is only sent once it has.
      while (!closed && (loaded < target || (target === size && !ended))) {
        if (!pending) {
          const result = await next();
          if (closed) break;
          if (result.done) {
            if (loaded < size) throw sizeMismatch(`ended after ${loaded} bytes; ${size} were declared`);
            ended = true;
            break;
          }
          const bytes = bytesOf(result.value);
          if (!bytes) throw unsupportedSource(`produced ${kindOf(result.value)}, not bytes (Uint8Array)`);
          if (loaded + bytes.byteLength > size)
            throw sizeMismatch(`holds more than the declared ${size} bytes`);
          if (bytes.byteLength > 0) pending = bytes;
          continue;
        }
        const n = Math.min(pending.byteLength, target - loaded);
        append(n === pending.byteLength ? pending : pending.subarray(0, n), loaded);
        loaded += n;
        pending = n === pending.byteLength ? undefined : pending.subarray(n);
        wake();
      }
    } catch (error) {
      failure ??= sourceFailure(error);
    } finally {
      reading = false;
      wake();
    }
  }

  return {
    /** Why reading failed (the stream's own error, or a length other than `size`), once it has. */
    get failure() {
      return failure;
    },
    /** Resolves once `[.., end)` is loaded (and, for the last byte, the stream has ended). */
    want(end: number): Promise<void> {
      const until = Math.min(end, size);
      target = Math.max(target, until);
      if (!reading && !closed && failure === undefined) void read();
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (loaded >= until && (until < size || ended)) resolve();
          else if (failure !== undefined) reject(failure);
          else if (closed) reject(sizeMismatch("was closed before it was read"));
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    /** Stops reading: every wait rejects, and a read in flight is dropped when it comes back. */
    close(): void {
      closed = true;
      pending = undefined;
      wake();
    },
  };
}

function sizeMismatch(message: string) {
  return localValidationError(
    [{ field: "size", message: `the source ${message}` }],
    "The upload source does not match its declared size",
  );
}

function releasedError(start: number, floor: number) {
  return localValidationError(
    [
      {
        field: "source",
        message: `is a stream already read past byte ${floor}, so byte ${start} cannot be sent again; resume with a seekable source (Blob, bytes or a file path)`,
      },
    ],
    "The upload cannot go back in a stream source",
  );
}
