/**
 * One upload: its lifecycle object (an event emitter with `initiated`, `progress`, `chunk`, `retry`,
 * the outcome in `done` and `abort()` to stop it), and the run it drives in the three phases
 * tus-js-client has: resume or initiate, send the chunks, finish.
 */
import { errorFromTransport } from "@promo-review/errors/internal";
import { type ObservedOperation, observed } from "@promo-review/errors/observe";
import type { RetryPolicy } from "@promo-review/http";
import { EventEmitter } from "eventemitter3";
import { checkUpload } from "./checks.js";
import { withUploadState } from "./failure.js";
import { fileDetailsOf } from "./file-details.js";
import { finish } from "./finish.js";
import { meteredClient } from "./metered-client.js";
import { fileDetails, formatBucket, uploaderOrigin } from "./observation.js";
import { resumeOrInitiate } from "./resume-or-initiate.js";
import { fingerprintOf } from "./resume-store.js";
import { sendChunks } from "./send-chunks.js";
import { openSource } from "./sources.js";
import type { UploadEvents, UploadOptions, UploadProgress, UploadResponse, UploadSource } from "./types.js";
import type { Emit, UploadContext, UploaderSettings } from "./upload-context.js";
import { checkUploadId } from "./wait.js";

/** What `uploader.start()` hands to a new upload. */
export interface UploadStart {
  settings: UploaderSettings;
  source: UploadSource;
  /** With `uploadId`, the upload to continue instead of looking one up in the store or initiating one. */
  options: UploadOptions & { uploadId?: string | undefined };
}

/**
 * An upload in progress. Listen with `on("progress", ...)`, await `done`, stop with `abort()` or the
 * `signal` given to `start`. `done` rejects with an error from `@promo-review/errors`; once the upload
 * has an id, the error names it and the byte offset the service confirmed (`uploadStateOf(error)`).
 */
export class Upload extends EventEmitter<UploadEvents> {
  /** Settles when the upload completes (with its `$response`, see `UploadResponse`) or stops. */
  declare readonly done: Promise<UploadResponse>;
  readonly #controller = new AbortController();
  #uploadId: string | undefined;
  #progress: UploadProgress | undefined;

  /** Starts the upload at once; use `uploader.start()` rather than this constructor. */
  constructor(start: UploadStart) {
    super();
    const { signal, onProgress } = start.options;
    const onAbort = () => this.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    if (onProgress) this.on("progress", onProgress);
    const emit: Emit = (event, ...args) => {
      if (event === "initiated") this.#uploadId = (args[0] as UploadEvents["initiated"][0]).uploadId;
      if (event === "progress") this.#progress = args[0] as UploadProgress;
      (this.emit as Emit)(event, ...args);
    };
    // Started on the next microtask so listeners attached right after `start()` see every event.
    this.done = Promise.resolve()
      .then(() => runUpload(start, emit, this.#controller.signal))
      .finally(() => signal?.removeEventListener("abort", onAbort));
    // `done` may be ignored by a caller that only listens to events; never an unhandled rejection.
    this.done.catch(() => {});
  }

  /** The upload id, once initiated (or given to resume). */
  get uploadId(): string | undefined {
    return this.#uploadId;
  }

  /** The latest progress report. */
  get progress(): UploadProgress | undefined {
    return this.#progress;
  }

  /** Stops the upload: the read, the chunk in flight and every wait end now; `done` rejects with an `AbortError`. */
  abort(reason?: unknown): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason ?? errorFromTransport(undefined, { aborted: true, sent: false }));
  }
}

/**
 * Runs one upload as the operation `uploads.upload` on the uploader's observer (when it has one),
 * under the caller's `parent`.
 */
function runUpload(start: UploadStart, emit: Emit, signal: AbortSignal): Promise<UploadResponse> {
  const { settings, options } = start;
  return observed(
    settings.observer,
    { name: "uploads.upload", ...uploaderOrigin(settings.http), parent: options.parent },
    (operation) => runPhases(start, emit, signal, operation),
  );
}

/**
 * Runs one upload: the local checks (nothing is sent for a file the service would refuse), then the
 * three phases. Once the upload has an id, its error names it and the bytes the service confirmed.
 */
async function runPhases(
  start: UploadStart,
  emit: Emit,
  signal: AbortSignal,
  parent: ObservedOperation | undefined,
): Promise<UploadResponse> {
  const { settings, source, options } = start;
  const { uploadId } = options;
  const meter = meteredClient(settings.http, options);
  const policy: RetryPolicy =
    options.retry === false ? { ...settings.retry, limit: 0 } : { ...settings.retry, ...options.retry };
  if (uploadId !== undefined) checkUploadId(uploadId);
  const opened = openSource(source, options.size);
  const size = opened.size;
  const details = fileDetailsOf(source, options);
  checkUpload({ fileName: details.fileName, contentType: details.contentType, size });
  // Both are non-empty strings once checked.
  const fileName = details.fileName as string;
  const contentType = details.contentType as string;
  const { observer } = settings;
  if (parent) observer?.operationDetailed?.(parent, fileDetails(size, contentType));
  const correlationId = options.correlationId ?? crypto.randomUUID();
  const reached: UploadContext["reached"] = { uploadId: undefined, acknowledged: 0 };
  try {
    const fingerprint = await fingerprintOf(opened, { fileName, contentType }, signal);
    const use = { logger: settings.logger, signal };
    const { store } = settings;
    const upload: UploadContext = {
      ...settings,
      // Every call names the upload and its logger; the store's own object stays the caller's.
      store: {
        get: (key) => store.get(key, use),
        set: (key, record) => store.set(key, record, use),
        delete: (key) => store.delete(key, use),
      },
      options,
      meter,
      policy,
      source: opened,
      size,
      fileName,
      contentType,
      fingerprint,
      correlationId,
      signal,
      emit,
      reached,
      parent,
    };
    // Phase 2's bytes and time, for the observer's throughput (timed only when there is one to tell).
    let phase2: { bytes: number; ms: number } | undefined;
    // Phases 1 and 2 under the store's lock on this file, when it has one: a second tab or process
    // given the same file waits, then continues this upload rather than send the file again.
    const place = async () => {
      const placed = await resumeOrInitiate(upload, uploadId);
      const began = observer?.uploadTransferred && performance.now();
      const sent = await sendChunks(upload, placed);
      if (began !== undefined) phase2 = { bytes: size - placed.resumedFrom, ms: performance.now() - began };
      await upload.store.delete(fingerprint);
      return sent;
    };
    const sent = await (store.exclusive ? store.exclusive(fingerprint, signal, place) : place());
    const response = await finish(upload, sent);
    if (phase2 && phase2.bytes > 0) {
      const format = formatBucket(contentType);
      observer?.uploadTransferred?.({ ...uploaderOrigin(settings.http), ...phase2, format });
    }
    return response;
  } catch (error) {
    const at = reached.uploadId;
    if (at !== undefined && parent) observer?.operationDetailed?.(parent, { uploadId: at });
    throw at === undefined
      ? error
      : withUploadState(error, { uploadId: at, bytesAcknowledged: reached.acknowledged, fileSize: size });
  } finally {
    await opened.close(signal.aborted ? signal.reason : undefined);
  }
}
