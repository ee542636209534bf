/**
 * What the three phases of an upload share: the uploader's settings, and one upload's checked source
 * and details, its request defaults and how far it got.
 */
import type { ObservedOperation, Observer } from "@promo-review/errors/observe";
import type { HttpClient, Logger, RetryPolicy } from "@promo-review/http";
import type { MeteredClient } from "./metered-client.js";
import type { ChunkPace } from "./put-chunk.js";
import type { ByteSource, ResumeStore, UploadEvents, UploadOptions } from "./types.js";

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

/** Emits one of an upload's events on its lifecycle object. */
export type Emit = <E extends keyof UploadEvents>(event: E, ...args: UploadEvents[E]) => void;

/**
 * One upload as its phases see it: the uploader's settings, and this upload's. `signal` and
 * `correlationId` also serve as its requests' options.
 */
export interface UploadContext extends Readonly<UploaderSettings> {
  readonly options: UploadOptions;
  /** The uploader's client metered for this upload: the result's `$response` comes from it. */
  readonly meter: MeteredClient;
  /** This upload's retry policy: the uploader's, with the upload's `retry` over it. */
  readonly policy: RetryPolicy;
  readonly source: ByteSource;
  readonly size: number;
  readonly fileName: string;
  readonly contentType: string;
  /** The key of this file in the resume store. */
  readonly fingerprint: string;
  /** Sent as `X-Correlation-ID` with every request of this upload. */
  readonly correlationId: string;
  /** The upload's own signal: `abort()` and the caller's signal both fire it. */
  readonly signal: AbortSignal;
  readonly emit: Emit;
  /**
   * How far the upload got, for the error it may end with: its id once it has one, and the bytes the
   * service confirmed.
   */
  readonly reached: { uploadId: string | undefined; acknowledged: number };
  /**
   * The upload's `uploads.upload` operation as the observer started it, `undefined` when unobserved:
   * the `parent` of its requests and of what it tells of each chunk, resume and poll.
   */
  readonly parent?: ObservedOperation | undefined;
}
