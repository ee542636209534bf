/**
 * `createUploader`: the entry point. One uploader per file service and caller; each `upload`,
 * `resume` or `start` is one file.
 */
import { localValidationError } from "@promo-review/errors";
import {
  type CallControl,
  type Credentials,
  createHttpClient,
  DEFAULT_RETRY,
  type HttpClient,
  type ObservabilityOptions,
  observabilityOf,
  type RetryPolicy,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import { streamingByDefault } from "./chunks.js";
import { meteredClient } from "./metered-client.js";
import { memoryResumeStore, type ResumeStore } from "./resume-store.js";
import { type TransferContext, transfer, type UploadOptions, type UploadResponse } from "./transfer.js";
import type { UploadSource } from "./types.js";
import { Upload } from "./upload.js";
import { getUploadState, type UploadState, type WaitOptions, waitForUpload } from "./wait.js";

/** How an uploader reaches the file service and behaves. */
/**
 * ...plus `hooks`, `logger` and `appInfo` (see `ObservabilityOptions` in `@promo-review/http`), and a
 * rate budget's `budget.kyHooks()` as `kyHooks`; all unused when `http` is given.
 */
export interface UploaderOptions extends ObservabilityOptions {
  /** The file service's base URL (`{files_url}`). Not needed when `http` is given. */
  filesUrl?: string;
  /** An API key with `externalUserId` (and optionally `externalUserEmail`), or a session token with `workspaceId`. */
  credentials?: Credentials;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /**
   * Further origins that may receive requests and credentials (a deployment whose `uploadUrl` is on
   * another host). Off by default: an `uploadUrl` on another origin fails the upload, nothing sent.
   */
  trustedOrigins?: readonly string[];
  /** Deadline of initiation and status requests, body included (default 30 s; chunks: `chunkTimeoutMs`). */
  timeoutMs?: number;
  /** A ready client for the file service, instead of `filesUrl` and `credentials`. */
  http?: HttpClient;
  /** Where unfinished uploads are remembered (default: this process's memory). */
  store?: ResumeStore;
  /**
   * Retries. For chunks, `limit` is how many failed attempts in a row, without progress, end the
   * upload (default 5; the count restarts whenever the service confirms more bytes). Initiation and
   * status reads use the HTTP client's retries with the same policy. `false`: one attempt of each
   * request, a failed chunk ending the upload.
   */
  retry?: Partial<RetryPolicy> | false | undefined;
  /**
   * How many bytes of a stream source (or async iterable) are read past the chunk being sent, so that
   * reading and sending overlap (default {@link DEFAULT_READ_AHEAD_BYTES}, 8 MiB). A stream upload holds
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
  /** Longest time one chunk PUT may take (default 10 minutes: a 50 MB chunk on a slow link). */
  chunkTimeoutMs?: number;
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

/** Uploads files to the file service. */
export interface Uploader {
  /**
   * Uploads a file (or continues its unfinished upload, found by fingerprint in the store). A `File`
   * gives `fileName` and `contentType` when the options leave them out.
   */
  upload(source: UploadSource, options?: UploadOptions): Promise<UploadResponse>;
  /** Continues upload `uploadId` from the byte the service holds. */
  resume(uploadId: string, source: UploadSource, options?: UploadOptions): Promise<UploadResponse>;
  /** Like `upload` (or `resume` when `uploadId` is given) but returns the lifecycle object at once. */
  start(source: UploadSource, options?: UploadOptions & { uploadId?: string }): Upload;
  /**
   * Polls the upload's status until `completed` (see {@link WaitOptions}); the id must be a UUID. The
   * `$response` is the last poll's, `attempts` counting every poll.
   */
  waitForCompletion(uploadId: string, options?: WaitOptions): Promise<WithResponse<UploadState>>;
  /**
   * Reads the upload's status once, with its `$response`; an id that is not a UUID is refused
   * locally, nothing sent.
   */
  status(uploadId: string, options?: StatusOptions): Promise<WithResponse<UploadState>>;
  /** The HTTP client in use. */
  readonly http: HttpClient;
}

/** Bytes of a stream source read past the chunk being sent, by default. */
export const DEFAULT_READ_AHEAD_BYTES = 8 * 1024 * 1024;

/** Backward moves of the service's offset an upload survives, by default. */
export const DEFAULT_MAX_RESYNCS = 10;

/** Chunk retries in a row without progress, by default. */
export const DEFAULT_CHUNK_RETRY_LIMIT = 5;

/** Creates an uploader for the file service. */
export function createUploader(options: UploaderOptions): Uploader {
  const http =
    options.http ??
    createHttpClient({
      baseUrl: required(options.filesUrl, "filesUrl"),
      credentials: required(options.credentials, "credentials"),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...observabilityOf(options),
      ...(options.retry !== undefined ? { retry: options.retry } : {}),
      ...(options.trustedOrigins ? { trustedOrigins: options.trustedOrigins } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  const context: TransferContext = {
    http,
    store: options.store ?? memoryResumeStore(),
    retry:
      options.retry === false
        ? { ...DEFAULT_RETRY, limit: 0 }
        : { ...DEFAULT_RETRY, limit: DEFAULT_CHUNK_RETRY_LIMIT, ...options.retry },
    streaming: options.streamRequestBodies ?? streamingByDefault(),
    readAheadBytes: readAheadOf(options.readAheadBytes),
    pollIntervalMs: options.pollIntervalMs ?? 250,
    chunkTimeoutMs: options.chunkTimeoutMs ?? 600_000,
    maxResyncs: options.maxResyncs ?? DEFAULT_MAX_RESYNCS,
  };
  const start = (source: UploadSource, upload: UploadOptions & { uploadId?: string | undefined } = {}) => {
    const lifecycle = new Upload(
      (emit, signal) => transfer(context, source, upload, emit, signal, upload.uploadId),
      upload.signal,
    );
    if (upload.onProgress) lifecycle.on("progress", upload.onProgress);
    return lifecycle;
  };
  return {
    http,
    start,
    upload: (source, upload) => start(source, { ...upload, uploadId: undefined }).done,
    resume: (uploadId, source, upload) => start(source, { ...upload, uploadId }).done,
    async waitForCompletion(uploadId, wait = {}) {
      // The wait's `timeoutMs` is its overall deadline, so only `retry` reaches the requests.
      const meter = meteredClient(http, wait.retry === undefined ? {} : { retry: wait.retry });
      const state = await waitForUpload(meter.http, uploadId, {
        pollIntervalMs: context.pollIntervalMs,
        ...wait,
      });
      return withResponse(state, meter.metadata()!);
    },
    async status(uploadId, read = {}) {
      const meter = meteredClient(http, read);
      const state = await getUploadState(meter.http, uploadId, read.signal ? { signal: read.signal } : {});
      return withResponse(state, meter.metadata()!);
    },
  };
}

function readAheadOf(bytes = DEFAULT_READ_AHEAD_BYTES): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw localValidationError(
      [{ field: "readAheadBytes", message: "must be a whole number of bytes, 0 or more" }],
      "The uploader configuration is invalid",
    );
  }
  return bytes;
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) {
    throw localValidationError(
      [{ field, message: "is required (or pass a ready `http` client)" }],
      "The uploader configuration is invalid",
    );
  }
  return value;
}
