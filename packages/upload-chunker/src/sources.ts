/**
 * Every kind of source the uploader accepts, behind one small interface: a known size, and the bytes
 * of any range still reachable. Blobs and byte arrays are reachable at any offset and never copied.
 * Streams and async iterables are read once, front to back: the bytes of the chunk being sent and at
 * most the read-ahead bytes after it are kept, copied into reused slabs of MAX_PIECE bytes, so a failed
 * chunk can be sent again from its start, and nothing older is kept. The request body is then a stream
 * of views of those slabs, never a copy of the chunk.
 */
import { AbortError, PromoReviewError } from "@promo-review/errors";
import { errorFromTransport, localValidationError } from "@promo-review/errors/internal";

/** What can be uploaded. File paths go through `fileSource` from `@promo-review/upload-chunker/node`. */
export type UploadSource =
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

/** The largest piece handed to `fetch` at once; progress is counted per piece (see `progress.ts`). */
export const MAX_PIECE = 1024 * 1024;

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

/** The bytes of one range of a source, ready to become a request body (as often as it is retried). */
export interface SourceRange {
  /**
   * The range's pieces, one after another, none larger than {@link MAX_PIECE}. Fresh on every call.
   * For a stream each piece waits until its bytes are read, so a body can start before its range is.
   * `settled` fires once the request that sends them is over: a source may then reuse their memory.
   */
  pieces(settled?: AbortSignal): AsyncIterator<Uint8Array>;
  /** The whole range as one body, for runtimes that cannot stream a request body. */
  whole(): Blob | Uint8Array;
}

/** A source opened for uploading. */
export interface ByteSource {
  /** Total bytes: the Blob's or array's size, or the size declared for a stream. */
  readonly size: number;
  /** True when any offset can be read again (Blob, bytes); false for a stream read once. */
  readonly seekable: boolean;
  /** `File.name`/`lastModified` when the source is a File (used by the resume fingerprint). */
  readonly file?: { name: string; lastModified: number };
  /** Waits until the bytes `[start, end)` are available. Fails when a stream ends before `end`. */
  load(start: number, end: number, signal?: AbortSignal): Promise<void>;
  /**
   * Starts reading `[.., end)` ahead without waiting; a failure surfaces at the next `load`. A stream
   * is never read past the furthest `end` asked for by `load`, `prefetch` or a range's pieces.
   */
  prefetch(end: number): void;
  /** The bytes `[start, end)`; they must have been loaded. */
  range(start: number, end: number): SourceRange;
  /** Lets go of every byte before `offset` (a stream's bytes are then gone for good). */
  release(offset: number): void;
  /** The first offset still available (0 for seekable sources). */
  readonly floor: number;
  /** Why reading a stream failed (its own error, or a length other than `size`), once it has. */
  readonly failure?: unknown;
  /** Stops reading the source (cancels a stream); idempotent. */
  close(reason?: unknown): Promise<void>;
}

function isBlob(value: unknown): value is Blob {
  return typeof Blob !== "undefined" && value instanceof Blob;
}

function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== "undefined" && value instanceof ReadableStream;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}

/** The size of a source when it can be known without reading it (Blob, bytes), else `undefined`. */
export function knownSize(source: UploadSource): number | undefined {
  if (isBlob(source)) return source.size;
  if (source instanceof ArrayBuffer) return source.byteLength;
  if (ArrayBuffer.isView(source)) return source.byteLength;
  return undefined;
}

/**
 * Opens a source. `declaredSize` is required for a stream or iterable (the service needs the size
 * up front) and, when given for a Blob or bytes, must match.
 */
export function openSource(source: UploadSource, declaredSize?: number): ByteSource {
  const known = knownSize(source);
  if (known !== undefined && declaredSize !== undefined && declaredSize !== known) {
    throw localValidationError(
      [{ field: "size", message: `is ${declaredSize} but the source holds ${known} bytes` }],
      "The upload options are invalid",
    );
  }
  if (isBlob(source)) return blobSource(source);
  if (source instanceof ArrayBuffer) return bytesSource(new Uint8Array(source));
  if (ArrayBuffer.isView(source)) {
    return bytesSource(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
  }
  if (!isReadableStream(source) && !isAsyncIterable(source)) throw unsupported();
  if (declaredSize === undefined || !Number.isSafeInteger(declaredSize) || declaredSize < 0) {
    throw localValidationError(
      [
        {
          field: "size",
          message:
            "is required for a stream or async iterable (the file service needs the total size before the first byte)",
        },
      ],
      "The upload options are invalid",
    );
  }
  if (isReadableStream(source)) {
    const reader = source.getReader();
    return streamSource(
      () => reader.read(),
      (reason) => reader.cancel(reason),
      declaredSize,
    );
  }
  const iterator = source[Symbol.asyncIterator]();
  return streamSource(
    () => iterator.next(),
    async (reason) => {
      await iterator.return?.(reason);
    },
    declaredSize,
  );
}

function unsupported() {
  return localValidationError(
    [
      {
        field: "source",
        message: "must be a Blob, File, ArrayBuffer, typed array, ReadableStream or AsyncIterable of bytes",
      },
    ],
    "The upload source is not supported",
  );
}

/** Splits pieces larger than {@link MAX_PIECE} into views (never copies). */
async function* bounded(
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  for await (const piece of pieces) {
    for (let at = 0; at < piece.byteLength; at += MAX_PIECE) {
      yield piece.subarray(at, Math.min(piece.byteLength, at + MAX_PIECE));
    }
  }
}

function asBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw localValidationError(
    [{ field: "source", message: `produced a ${typeof value}, not bytes (Uint8Array)` }],
    "The upload source is not supported",
  );
}

/**
 * The typed error a source failure becomes: code `SOURCE_ERROR`, the original as `cause`. An error
 * already from `@promo-review/errors` (a size mismatch, an abort) is kept as it is.
 */
export function sourceFailure(error: unknown): PromoReviewError {
  if (error instanceof PromoReviewError) return error;
  const reason = (error as { message?: unknown })?.message ?? error;
  return new PromoReviewError({
    code: "SOURCE_ERROR",
    message: `The upload source could not be read: ${String(reason)}; nothing more was sent`,
    cause: error,
  });
}

/** The pieces of a range, with a read failure recorded (`onFailure`) and thrown typed. */
async function* guarded(
  pieces: AsyncIterator<Uint8Array>,
  onFailure: (error: PromoReviewError) => PromoReviewError,
): AsyncGenerator<Uint8Array> {
  for (;;) {
    let step: IteratorResult<Uint8Array>;
    try {
      step = await pieces.next();
    } catch (error) {
      throw onFailure(sourceFailure(error));
    }
    if (step.done) return;
    yield step.value;
  }
}

function blobSource(blob: Blob): ByteSource {
  let failure: PromoReviewError | undefined;
  const fail = (error: PromoReviewError) => {
    failure ??= error;
    return failure;
  };
  const file =
    typeof (blob as File).name === "string" && typeof (blob as File).lastModified === "number"
      ? { name: (blob as File).name, lastModified: (blob as File).lastModified }
      : undefined;
  return {
    size: blob.size,
    seekable: true,
    floor: 0,
    ...(file ? { file } : {}),
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

function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.byteLength,
    seekable: true,
    floor: 0,
    load: async () => {},
    prefetch: () => {},
    range(start, end) {
      const view = bytes.subarray(start, end);
      return { whole: () => view, pieces: () => bounded([view]) };
    },
    release: () => {},
    close: async () => {},
  };
}

/** A fixed-size buffer holding the stream's bytes from `start`; `length` of them are filled. */
interface Slab {
  start: number;
  buffer: Uint8Array;
  length: number;
}

function streamSource(
  next: () => Promise<IteratorResult<Uint8Array> | ReadableStreamReadResult<Uint8Array>>,
  cancel: (reason?: unknown) => Promise<void>,
  size: number,
): ByteSource {
  // The stream's pieces are copied into slabs of MAX_PIECE bytes (starting at multiples of MAX_PIECE)
  // that are reused once released: the request body then always moves in MAX_PIECE pieces whatever the
  // stream delivers (tiny pieces cost Node's fetch dearly), and the memory held is a fixed set of
  // buffers, not a churn of garbage. One reader runs at a time and reads until `loaded` reaches
  // `target`, never further: of a piece the stream gave, only the bytes up to `target` are copied and
  // the rest waits in `pending` (the stream's own buffer).
  const slabs: Slab[] = [];
  const spare: Uint8Array[] = [];
  const waiters = new Set<() => void>();
  let pending: Uint8Array | undefined;
  let loaded = 0; // offset just after the last byte copied into a slab
  let floor = 0; // bytes before this are released (and dropped as soon as they are read)
  let target = 0; // the reader stops once `loaded` reaches this
  let ended = false; // the stream ended exactly at `size`
  let closed = false;
  let failure: unknown;
  let reading = false;

  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const dropReleased = () => {
    while (slabs.length > 0 && slabs[0]!.start + slabs[0]!.length <= floor) spare.push(slabs.shift()!.buffer);
  };

  const append = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.byteLength; ) {
      let last = slabs.at(-1);
      if (!last || last.length === MAX_PIECE) {
        last = { start: loaded, buffer: spare.pop() ?? new Uint8Array(MAX_PIECE), length: 0 };
        slabs.push(last);
      }
      const n = Math.min(MAX_PIECE - last.length, bytes.byteLength - at);
      last.buffer.set(bytes.subarray(at, at + n), last.length);
      last.length += n;
      loaded += n;
      at += n;
    }
    dropReleased();
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
          const bytes = asBytes(result.value);
          if (loaded + bytes.byteLength > size)
            throw sizeMismatch(`holds more than the declared ${size} bytes`);
          if (bytes.byteLength > 0) pending = bytes;
          continue;
        }
        const n = Math.min(pending.byteLength, target - loaded);
        append(n === pending.byteLength ? pending : pending.subarray(0, n));
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

  /** Resolves once `[.., end)` is loaded (and, for the last byte, the stream has ended). */
  function want(end: number): Promise<void> {
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
  }

  /** The range's pieces, each waiting for its bytes: a body can start before its chunk is read. */
  async function* pieces(start: number, end: number): AsyncGenerator<Uint8Array> {
    for (let at = start; at < end; ) {
      const stop = Math.min(end, (Math.floor(at / MAX_PIECE) + 1) * MAX_PIECE);
      await want(stop);
      if (closed) throw sizeMismatch("was closed before it was read");
      if (at < floor) throw releasedError(at, floor);
      const slab = slabs[Math.floor(at / MAX_PIECE) - Math.floor(slabs[0]!.start / MAX_PIECE)]!;
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
      return failure;
    },
    async load(start, end, signal) {
      if (start < floor) throw releasedError(start, floor);
      await raceAbort(want(end), signal);
    },
    prefetch(end) {
      want(end).catch(() => {});
    },
    range(start, end) {
      if (start < floor) throw releasedError(start, floor);
      return {
        pieces: () => pieces(start, end),
        // Only for runtimes without request streams (browsers on HTTP/1.1): one copy of the chunk, of
        // bytes already loaded.
        whole: () =>
          new Blob(
            slabs
              .filter((slab) => slab.start + slab.length > start && slab.start < end)
              .map((slab) =>
                slab.buffer.subarray(
                  Math.max(0, start - slab.start),
                  Math.min(slab.length, end - slab.start),
                ),
              ) as BlobPart[],
          ),
      };
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
      pending = undefined;
      wake();
      await cancel(reason).catch(() => {});
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

/** Resolves or rejects as `work` does, or rejects with an `AbortError` as soon as `signal` fires. */
export function raceAbort<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted)
    return Promise.reject(errorFromTransport(signal.reason, { aborted: true, sent: false }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(errorFromTransport(signal.reason, { aborted: true, sent: false }));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Whether `error` is the abort error this package raises (kept here so sources and uploads agree). */
export function isAbort(error: unknown): error is AbortError {
  return error instanceof AbortError;
}
