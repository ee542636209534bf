/**
 * The public types of the package, in the order a reader meets them: the uploader's options,
 * what can be uploaded and what one upload is asked to do, what it reports and gives back, where
 * unfinished uploads are remembered, and the interface every kind of source is opened into. Last, the
 * values one upload's phases hand each other (internal: the index does not export them), here so that
 * no phase imports another's file for a type.
 */

import type { PromoReviewError } from "@promo-review/errors";
import type { ObservedOperation, Observer } from "@promo-review/errors/observe";
import type {
  CallControl,
  HttpClient,
  HttpClientSource,
  Logger,
  ResponseMetadata,
  RetryPolicy,
  WithResponse,
} from "@promo-review/http";
import type { Store } from "@promo-review/store";
import type { UPLOAD_STATUSES } from "./upload-statuses.js";

/**
 * How an uploader reaches the file service and behaves: these, plus the flat credentials (`apiKey`
 * with `externalUserId` and optionally `externalUserEmail`, or `sessionToken` with `workspaceId`),
 * `fetch`, `hooks`, `logger`, `appInfo` and a rate `budget` (see `HttpClientSource` in
 * `@promo-review/http`); all unused when `http` is given.
 */
export interface UploaderOptions extends HttpClientSource {
  /**
   * What observes every upload, status read and wait (and, for a client made here, every request):
   * `openTelemetry({ tracerProvider, meterProvider })` from `@promo-review/opentelemetry`, or any
   * `Observer` of `@promo-review/errors/observe`. Told the operation (`uploads.upload` with the file's
   * size and type, never its name), each chunk attempt, a resume and each completion poll. Default: none.
   */
  telemetry?: Observer | undefined;
  /** The file service's base URL (`{files_url}`). Not needed when `http` is given. */
  filesUrl?: string;
  /**
   * Further origins that may receive requests and credentials (a deployment whose `uploadUrl` is on
   * another host). Off by default: an `uploadUrl` on another origin fails the upload, nothing sent.
   */
  trustedOrigins?: readonly string[];
  /**
   * Deadline of initiation and status requests, body included (default 30 s); the base of a chunk's
   * deadline, which adds the time its bytes take (see `chunkTimeoutMs`).
   */
  timeoutMs?: number;
  /** A ready client for the file service, instead of `filesUrl` and the credentials. */
  http?: HttpClient;
  /**
   * Where unfinished uploads are remembered (default: this process's memory): the client's shared
   * store from `@promo-review/store` (`redisStore(client)`, `durableObjectStore(namespace)`,
   * `denoKvStore(kv)`), whose resume points last 7 days after their last write, or a
   * {@link ResumeStore} such as `webStorageResumeStore` (the browser's) or `fileResumeStore` (Node).
   */
  store?: ResumeStore | Store;
  /**
   * Retries. For chunks, `limit` is how many failed attempts in a row, without progress, end the
   * upload (default 5; the count restarts whenever the service confirms more bytes). Initiation and
   * status reads use the HTTP client's retries with the same policy. `false`: one attempt of each
   * request, a failed chunk ending the upload.
   */
  retry?: Partial<RetryPolicy> | false | undefined;
  /**
   * How many bytes of a stream source (or async iterable) are read past the chunk being sent, so that
   * reading and sending overlap (default 8 MiB). A stream upload holds
   * at most `chunk size + readAheadBytes` of the stream's bytes. Blobs and byte arrays are not read
   * ahead.
   */
  readAheadBytes?: number;
  /** First pause between status polls while waiting for `completed` (default 250 ms, doubling to 5 s). */
  pollIntervalMs?: number;
  /**
   * How many times the service may move its offset back (a chunk answer's `receivedBytes` or a 409's
   * `content_range_start` below the chunk just sent) before the upload ends with `UNEXPECTED_RESPONSE`
   * (default {@link DEFAULT_MAX_RESYNCS}, 10). Each move waits a growing, jittered pause first (the
   * retry policy's backoff), so an offset that keeps moving never becomes a tight loop of PUTs.
   */
  maxResyncs?: number;
  /**
   * A fixed deadline for each chunk PUT, until its answer is read. Default: none fixed, the deadline
   * follows the chunk: `timeoutMs` (default 30 s) plus the chunk's bytes at `minBytesPerSecond`
   * (default 64 KiB/s), so a 10-byte chunk gets 30 s and a 50 MiB one about 14 minutes.
   */
  chunkTimeoutMs?: number;
  /**
   * The slowest transfer allowed (default {@link DEFAULT_CHUNK_MIN_BYTES_PER_SECOND}, 64 KiB/s for
   * chunks): each chunk's deadline gets its bytes' time at this speed, and a chunk answer whose body
   * averages less over an `idleTimeoutMs` stretch fails with a `TimeoutError` naming the slow body.
   * Set here it is also the low-speed limit of the uploader's other answers (see `HttpClientSource`).
   */
  minBytesPerSecond?: number | undefined;
  /**
   * Stream chunk bodies (bytes counted as the network takes them). Default: yes where request streams
   * work on any HTTP version (Node, Deno, Bun, Workers); in browsers chunks go as Blobs.
   */
  streamRequestBodies?: boolean;
}

/** Options of one status read: `signal`, and the call's `timeoutMs` and `retry`. */
export interface StatusOptions extends CallControl {
  signal?: AbortSignal | undefined;
}

/**
 * What can be uploaded: a Blob or File, bytes, or a stream made a source by `fromStream`. File paths go
 * through `fileSource` from `@promo-review/upload-chunker/node`.
 */
export type UploadSource = Blob | ArrayBuffer | ArrayBufferView | StreamSource;

/**
 * A web `ReadableStream` or an `AsyncIterable` of bytes as an upload source: `fromStream(stream)`.
 * The stream reader is its own import, so a bundle that uploads only Files and bytes leaves it out.
 */
export interface StreamSource {
  /** Opens the stream as a source of `size` bytes (the upload's declared `size`); called once. */
  open(size: number): ByteSource;
}

/**
 * What one upload is asked to do. `timeoutMs` is the deadline of each request of this upload
 * (initiation, status reads and each chunk PUT, replacing `timeoutMs` and `chunkTimeoutMs` of the
 * uploader); `retry` overrides the uploader's policy for them (chunks included: `limit` failed attempts
 * in a row), and `false` makes one attempt of each, a failed chunk ending the upload.
 */
export interface UploadOptions extends CallControl {
  /** The file's name, with its extension. Default: the source's `name` when it is a `File`. */
  fileName?: string | undefined;
  /**
   * Its MIME type; decides the format and so the size limit (see `formatOf`). Default: the source's
   * `type` when it is a `Blob` (or `File`) that has one.
   */
  contentType?: string | undefined;
  /** The size in bytes: required for a stream (`fromStream`), checked against a Blob or bytes. */
  size?: number;
  /** Stops reading, the chunk in flight and every wait, at once. */
  signal?: AbortSignal;
  /** Called with every progress report (also emitted as `progress` by `startUpload`'s `Upload`). */
  onProgress?: (progress: UploadProgress) => void;
  /** Called once the upload has an id, new or resumed, before its first chunk (`initiated`). */
  onInitiated?: (event: InitiatedEvent) => void;
  /** Called for each chunk the service stored (`chunk`). */
  onChunk?: (event: ChunkEvent) => void;
  /** Called before each chunk retry, and before waiting out a backward move of the service's offset (`retry`). */
  onRetry?: (event: RetryEvent) => void;
  /** Wait for the service to report `completed` before resolving. Default true. */
  waitForCompletion?: boolean;
  /** Longest wait for `completed` after the last byte. Default `DEFAULT_WAIT_TIMEOUT_MS` (10 minutes). */
  waitTimeoutMs?: number;
  /**
   * Bytes per chunk, when smaller than the service's `maxChunkSize` (less memory for stream sources,
   * shorter requests on slow links). When resuming an upload this store does not know, the chunk size
   * to start from (default 8 MiB); a 413 naming `max_chunk_size` lowers it to the service's limit.
   */
  chunkSize?: number;
  /** Sent as `X-Correlation-ID` on every request of this upload; a fresh id when absent. */
  correlationId?: string;
  /**
   * The operation `uploads.upload` runs inside (the facade's flows pass theirs), as the `telemetry`
   * observer started it. Default: none (an OpenTelemetry observer then uses the caller's active span).
   */
  parent?: ObservedOperation | undefined;
}

/** What a finished upload gives back. */
export interface UploadResult {
  uploadId: string;
  /** `completed` unless `waitForCompletion: false`. */
  status: UploadStatus;
  fileSize: number;
  fileName: string;
  /** The correlation id of the service's last answer. */
  correlationId: string;
  /** The byte the upload (re)started from: 0, or where an earlier attempt had got to. */
  resumedFrom: number;
  /** Chunk attempts that failed and were retried (like lib-storage's `$metadata.attempts - 1`). */
  retries: number;
}

/**
 * A finished upload with its non-enumerable `$response`: the status, headers and correlation id of the
 * upload's last answer (the completing status read, or the last chunk PUT), `attempts` counting every
 * request the upload sent (initiation, status reads, chunk PUTs, retries included), and `durationMs`
 * the whole upload's.
 */
export type UploadResponse = WithResponse<UploadResult>;

/** Emitted once the upload has an id. */
export interface InitiatedEvent {
  uploadId: string;
  maxChunkSize: number;
  /** 0 for a new upload; for a resumed one, the byte the service already holds. */
  resumedFrom: number;
}

/** Emitted after each chunk the service accepted. */
export interface ChunkEvent {
  uploadId: string;
  start: number;
  /** Exclusive. */
  end: number;
  /** Attempts it took (1 when the first succeeded). */
  attempts: number;
  /** Whether the body was streamed (false in browsers and after a runtime refused a stream body). */
  streamed: boolean;
  receivedBytes: number;
}

/** Emitted before a chunk is sent again. */
export interface RetryEvent {
  uploadId: string;
  start: number;
  end: number;
  /** Failed attempts since the upload last made progress. */
  attempt: number;
  delayMs: number;
  error: PromoReviewError;
}

/** The events of an upload. */
export interface UploadEvents {
  initiated: [InitiatedEvent];
  progress: [UploadProgress];
  chunk: [ChunkEvent];
  retry: [RetryEvent];
}

/** One progress report. */
export interface UploadProgress {
  /** The upload id, once initiated. */
  uploadId: string;
  /** Bytes handed to the network so far (the furthest byte any attempt has sent). */
  bytesSent: number;
  /** Bytes the file service has confirmed storing (`receivedBytes`). */
  bytesAcknowledged: number;
  /** The file's size. */
  totalBytes: number;
}

/** The upload statuses of the spec. */
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

/** The upload object (`GET /v1/uploads/{id}`). */
export interface UploadState {
  uploadId: string;
  status: UploadStatus;
  /** As the service sent it (`""` when it left it out). */
  fileName: string;
  /** The total bytes, when the service said (`undefined` when it left it out). */
  fileSize: number | undefined;
  /** As the service sent it (`""` when it left it out). */
  createdAt: string;
  /**
   * The next byte the service expects (an extension of the spec the simulator documents). When the
   * service leaves it out it is `undefined`, and an upload resumes by sending from byte 0: the service
   * accepts a repeat of a stored range, and a 409 naming `content_range_start` moves the upload to the
   * offset the service expects.
   */
  receivedBytes: number | undefined;
  correlationId: string;
}

/** How `uploader.waitForCompletion` polls. */
export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up after this long (a `TimeoutError`). Default {@link DEFAULT_WAIT_TIMEOUT_MS} (10 minutes). */
  timeoutMs?: number | undefined;
  /** The first pause between polls; later pauses double up to `maxPollIntervalMs`. Default 250 ms. */
  pollIntervalMs?: number;
  /** The longest pause between polls. Default 5 s. */
  maxPollIntervalMs?: number;
  /** Random source for the jitter (tests pass a fixed one). */
  random?: () => number;
  correlationId?: string;
  /** Overrides of the HTTP client's retry policy for each poll, or `false` for one attempt each. */
  retry?: Partial<RetryPolicy> | false | undefined;
  /**
   * The operation `uploads.waitForCompletion` runs inside (promotions' wait after a 409
   * `upload_not_ready` passes its own), as the `telemetry` observer started it.
   */
  parent?: ObservedOperation | undefined;
}

/** The `upload_state` detail added to the error an upload ends with. */
export interface UploadStateDetail {
  type: "upload_state";
  uploadId: string;
  /** Bytes the file service had confirmed when the upload stopped: resume continues from here. */
  bytesAcknowledged: number;
  fileSize: number;
}

/** The name and type as given, either possibly absent. */
export interface FileDetails {
  fileName?: string | undefined;
  contentType?: string | undefined;
}

/**
 * A format a file upload can have: the file service's table of formats and their size limits (see
 * `FORMAT_LIMITS`). They match the promotion `fileFormat` values other than `text` (promotions-core's
 * `FILE_FORMATS`), but they are the file service's list: this package depends on no promotion rule.
 */
export type UploadFormat = "video" | "audio" | "image" | "pdf" | "document";

/** What is remembered about an unfinished upload. */
export interface ResumeRecord {
  uploadId: string;
  /** The service's `maxChunkSize` for this upload, so a resumed upload needs no guess. */
  maxChunkSize: number;
  fileSize: number;
}

/**
 * What the uploader hands a store with each call: its `logger`, so a store that degrades rather than
 * fail the upload (web storage that is full or refused) can say so, and the upload's `signal`, which
 * also names the upload (the same object from `exclusive` to the last call).
 */
export interface ResumeStoreUse {
  readonly logger?: Logger | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Where unfinished uploads are remembered. Methods may be synchronous or return promises (a database,
 * `localStorage`, a file). Values must survive as they are; keys are fingerprints
 * (see {@link fingerprintOf}).
 */
export interface ResumeStore {
  get(
    fingerprint: string,
    use?: ResumeStoreUse,
  ): ResumeRecord | undefined | Promise<ResumeRecord | undefined>;
  set(fingerprint: string, record: ResumeRecord, use?: ResumeStoreUse): void | Promise<void>;
  delete(fingerprint: string, use?: ResumeStoreUse): void | Promise<void>;
  /**
   * Optional: runs `task` (an upload, from looking it up to its last stored byte) while holding a lock
   * on the fingerprint that other tabs or processes sharing the store respect, so a file given to two
   * of them at once is sent once. Waiting for the lock ends when `signal` aborts (with its reason),
   * and the lock is released however `task` settles.
   */
  exclusive?<T>(fingerprint: string, signal: AbortSignal, task: () => Promise<T>): Promise<T>;
}

/**
 * The part of the Web Storage API a store needs (`localStorage`, `sessionStorage`, or a look-alike).
 * With `length` and `key`, the store also sweeps expired entries.
 */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  readonly length?: number | undefined;
  key?(index: number): string | null;
}

/** The part of the Web Locks API (`navigator.locks`) a store needs. */
export interface WebLocks {
  request<T>(name: string, options: { signal?: AbortSignal }, callback: () => Promise<T>): Promise<T>;
}

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

// ---------------------------------------------------------------------------------------------------
// What one upload's phases hand each other (see upload.ts, which runs them top-down).

/** What a chunk's deadline follows when none is fixed: a base for the exchange, and a floor on speed. */
export interface ChunkPace {
  /** The time a small exchange gets: the uploader's `timeoutMs` (default 30 s). */
  readonly baseMs: number;
  /**
   * The slowest speed allowed: a chunk gets `bytes ÷ minBytesPerSecond` on top of `baseMs`, and its
   * answer's body must keep this pace over every `idleTimeoutMs` stretch (the client's low-speed limit).
   */
  readonly minBytesPerSecond: number;
}

/** A client for one operation, and what it saw (see `meteredClient`). */
export interface MeteredClient {
  /** Use it as the operation's HTTP client. */
  readonly http: HttpClient;
  /**
   * The last answer's status, headers and correlation id, with `attempts` counting every request
   * sent (retries included; a request that failed counts once) and `durationMs` since the meter was
   * made. `undefined` before any answer.
   */
  metadata(): ResponseMetadata | undefined;
}

/** What the uploader shares with each upload: its options, resolved. */
export interface UploaderSettings {
  http: HttpClient;
  store: ResumeStore;
  /** The uploader's `logger` option, handed to the store (which may need to say resuming is off). */
  logger: Logger | undefined;
  /** Per-chunk retry policy: `limit` failed attempts in a row without progress end the upload. */
  retry: RetryPolicy;
  streaming: boolean;
  /** How far a stream source is read past the chunk being sent (see `UploaderOptions.readAheadBytes`). */
  readAheadBytes: number;
  pollIntervalMs: number;
  /** A fixed deadline per chunk PUT, when the caller set one; else the deadline follows `chunkPace`. */
  chunkTimeoutMs: number | undefined;
  /** What a chunk's deadline and its answer's low-speed limit follow (see `ChunkPace`). */
  chunkPace: ChunkPace;
  /** Times the service may move its offset back before the upload ends (see `UploaderOptions.maxResyncs`). */
  maxResyncs: number;
  /** The uploader's `telemetry` observer, `undefined` when it was given none. */
  observer: Observer | undefined;
}

/** Tells one of an upload's events to its callbacks (`onProgress`, `onInitiated`, `onChunk`, `onRetry`). */
export type Emit = <E extends keyof UploadEvents>(event: E, ...args: UploadEvents[E]) => void;

/** The input of an upload once checked: the opened source and the details the service needs. */
export interface CheckedInput {
  readonly source: ByteSource;
  readonly size: number;
  readonly fileName: string;
  readonly contentType: string;
}

/**
 * One upload as every phase reads it, never edits it: the uploader's settings, and this upload's.
 * `signal` and `correlationId` also serve as its requests' options.
 */
export interface UploadContext extends Readonly<UploaderSettings>, CheckedInput {
  readonly options: UploadOptions;
  /** The uploader's client metered for this upload: the result's `$response` comes from it. */
  readonly meter: MeteredClient;
  /** This upload's retry policy: the uploader's, with the upload's `retry` over it. */
  readonly policy: RetryPolicy;
  /** The key of this file in the resume store. */
  readonly fingerprint: string;
  /** Sent as `X-Correlation-ID` with every request of this upload. */
  readonly correlationId: string;
  /** The upload's own signal: `abort()` and the caller's signal both fire it. */
  readonly signal: AbortSignal;
  readonly emit: Emit;
  /**
   * The upload's `uploads.upload` operation as the observer started it, `undefined` when unobserved:
   * the `parent` of its requests and of what it tells of each chunk, resume and poll.
   */
  readonly parent?: ObservedOperation | undefined;
}

/** What phase 1 (resume or initiate) hands to phase 2: where the upload stands once it has an id. */
export interface Placement {
  readonly uploadId: string;
  readonly uploadUrl: string;
  readonly maxChunkSize: number;
  /** The bytes the service already holds: 0 for a new upload. */
  readonly resumedFrom: number;
  /**
   * The status read when resuming, `undefined` for a new upload: an upload with a status may hold any
   * byte of the file (an earlier run may have sent it).
   */
  readonly status: UploadStatus | undefined;
  /** The correlation id of the service's last answer. */
  readonly lastCorrelationId: string;
}

/** What phase 2 (send the chunks) hands to phase 3 (finish): every byte is stored. */
export interface Sent {
  readonly uploadId: string;
  readonly resumedFrom: number;
  /** The status the last chunk answer (or the resume's status read) gave, if any. */
  readonly status: UploadStatus | undefined;
  /** The correlation id of the service's last answer. */
  readonly lastCorrelationId: string;
  /** Chunk attempts that failed and were retried. */
  readonly retries: number;
}
