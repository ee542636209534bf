/**
 * `createUploader`: the entry point. One uploader per file service and caller; each `upload`,
 * `resume` or `start` is one file.
 */
import { localValidationError } from "@promo-review/errors/internal";
import { type ObservedOperation, observed } from "@promo-review/errors/observe";
import {
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type HttpClient,
  httpClientFrom,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import { streamingByDefault } from "./chunks.js";
import { isKitStore, kitResumeStore } from "./kit-resume-store.js";
import { meteredClient } from "./metered-client.js";
import { uploaderOrigin } from "./observation.js";
import { oneFileAtATime } from "./one-file-at-a-time.js";
import { DEFAULT_CHUNK_MIN_BYTES_PER_SECOND } from "./put-chunk.js";
import { memoryResumeStore } from "./resume-store.js";
import { statusRoute, waitForCompletionOperation } from "./routes.js";
import type {
  StatusOptions,
  UploaderOptions,
  UploaderSettings,
  UploadOptions,
  UploadResponse,
  UploadSource,
  UploadState,
  WaitOptions,
} from "./types.js";
import { runUpload } from "./upload.js";
import { checkUploadId, getUploadState, waitForUpload } from "./wait.js";

/** Bytes of a stream source read past the chunk being sent, by default. */
export const DEFAULT_READ_AHEAD_BYTES = 8 * 1024 * 1024;

/** Backward moves of the service's offset an upload survives, by default. */
export const DEFAULT_MAX_RESYNCS = 10;

/** Chunk retries in a row without progress, by default. */
export const DEFAULT_CHUNK_RETRY_LIMIT = 5;

/**
 * Uploads files to the file service. Events and `abort()` on a lifecycle object are `startUpload`'s
 * (its own import): `upload` and `resume` tell them to the callbacks in their options.
 */
export interface Uploader {
  /**
   * Uploads a file (or continues its unfinished upload, found by fingerprint in the store). A `File`
   * gives `fileName` and `contentType` when the options leave them out.
   */
  upload(source: UploadSource, options?: UploadOptions): Promise<UploadResponse>;
  /** Continues upload `uploadId` from the byte the service holds. */
  resume(uploadId: string, source: UploadSource, options?: UploadOptions): Promise<UploadResponse>;
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

/** Creates an uploader for the file service. */
export function createUploader(options: UploaderOptions): Uploader {
  const http = httpClientFrom(options, {
    client: "createUploader",
    baseUrlField: "filesUrl",
    baseUrl: options.filesUrl,
  });
  const settings: UploaderSettings = {
    http,
    store: oneFileAtATime(
      options.store === undefined
        ? memoryResumeStore()
        : isKitStore(options.store)
          ? kitResumeStore(options.store)
          : options.store,
    ),
    logger: options.logger,
    retry:
      options.retry === false
        ? { ...DEFAULT_RETRY, limit: 0 }
        : { ...DEFAULT_RETRY, limit: DEFAULT_CHUNK_RETRY_LIMIT, ...options.retry },
    streaming: options.streamRequestBodies ?? streamingByDefault(),
    readAheadBytes: readAheadOf(options.readAheadBytes),
    pollIntervalMs: options.pollIntervalMs ?? 250,
    chunkTimeoutMs: options.chunkTimeoutMs,
    chunkPace: {
      baseMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      minBytesPerSecond: options.minBytesPerSecond || DEFAULT_CHUNK_MIN_BYTES_PER_SECOND,
    },
    maxResyncs: options.maxResyncs ?? DEFAULT_MAX_RESYNCS,
    observer: options.telemetry,
  };
  const observer = options.telemetry;
  /** Runs `work` on upload `uploadId` as operation `name`, the id checked (and told) first. */
  const observedCall = <T>(
    name: string,
    uploadId: string,
    parent: ObservedOperation | undefined,
    work: (operation: ObservedOperation | undefined) => Promise<T>,
  ) =>
    observed(observer, { name, ...uploaderOrigin(http), parent }, (operation) => {
      checkUploadId(uploadId);
      if (operation) observer?.operationDetailed?.(operation, { uploadId });
      return work(operation);
    });
  return {
    http,
    upload: (source, upload) => runUpload({ settings, source, options: { ...upload, uploadId: undefined } }),
    // Checked here: an undefined id means "a new upload", never what resume asks for.
    async resume(uploadId, source, upload) {
      checkUploadId(uploadId);
      return runUpload({ settings, source, options: { ...upload, uploadId } });
    },
    waitForCompletion: (uploadId, wait = {}) =>
      observedCall(waitForCompletionOperation.name, uploadId, wait.parent, async (parent) => {
        // The wait's `timeoutMs` is its overall deadline, so only `retry` reaches the requests.
        const meter = meteredClient(http, { retry: wait.retry });
        const state = await waitForUpload(meter.http, uploadId, {
          pollIntervalMs: settings.pollIntervalMs,
          ...wait,
          parent,
          observer,
        });
        return withResponse(state, meter.metadata()!);
      }),
    status: (uploadId, read = {}) =>
      observedCall(statusRoute.name, uploadId, undefined, async (parent) => {
        const meter = meteredClient(http, read);
        const state = await getUploadState(meter.http, uploadId, { signal: read.signal, parent });
        return withResponse(state, meter.metadata()!);
      }),
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
