/**
 * The public types of the package: what can be uploaded, and the interface every kind of source is
 * opened into.
 */

/** What can be uploaded. File paths go through `fileSource` from `@promo-review/upload-chunker/node`. */
export type UploadSource =
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>;

/** The bytes of one range of a source, ready to become a request body (as often as it is retried). */
export interface SourceRange {
  /**
   * The range's pieces, one after another, none larger than 1 MiB. Fresh on every call.
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
  readonly file?: { name: string; lastModified: number } | undefined;
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
