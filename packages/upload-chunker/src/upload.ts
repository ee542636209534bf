/**
 * One upload, read top-down: the run, its events told to the caller's callbacks (the emitter of
 * `startUpload`, started-upload.ts, is one such caller), then one named step each: check the input,
 * resume or initiate (phase 1), send the chunks (phase 2), finish (phase 3: wait for `completed`). Each step hands the next a small value (`CheckedInput`, `Placement`, `Sent`,
 * all in types.ts); the chunk loop itself is send-chunks.ts.
 */
import { type ObservedOperation, observed } from "@promo-review/errors/observe";
import { checkUpload } from "./checks.js";
import { uploadStateOf, withUploadState } from "./failure.js";
import { fileDetailsOf } from "./file-details.js";
import { finish } from "./finish.js";
import { meteredClient } from "./metered-client.js";
import { fileDetails, formatBucket, uploaderOrigin } from "./observation.js";
import { resumeOrInitiate } from "./resume-or-initiate.js";
import { fingerprintOf } from "./resume-store.js";
import { uploadOperation } from "./routes.js";
import { sendChunks } from "./send-chunks.js";
import { openSource } from "./sources.js";
import type {
  CheckedInput,
  Emit,
  ResumeStore,
  UploadContext,
  UploaderSettings,
  UploadOptions,
  UploadResponse,
  UploadSource,
} from "./types.js";
import { checkUploadId } from "./wait.js";

/** What the uploader hands to a new upload. */
export interface UploadStart {
  settings: UploaderSettings;
  source: UploadSource;
  /** With `uploadId`, the upload to continue instead of looking one up in the store or initiating one. */
  options: UploadOptions & { uploadId?: string | undefined };
}

/**
 * Runs one upload, stopped by the caller's `signal`, its events told to the callbacks it gave. What
 * is never asked for costs nothing: no emitter, no listener list.
 */
export function runUpload(start: UploadStart): Promise<UploadResponse> {
  const { options } = start;
  const signal = options.signal ?? new AbortController().signal;
  const callbacks = {
    initiated: options.onInitiated,
    progress: options.onProgress,
    chunk: options.onChunk,
    retry: options.onRetry,
  };
  const emit: Emit = (event, ...args) =>
    (callbacks[event] as ((...told: typeof args) => void) | undefined)?.(...args);
  // Started on the next microtask, as a promise: a check that fails is a rejection, never a throw.
  const done = Promise.resolve().then(() => run(start, emit, signal));
  // A caller that follows the upload through its callbacks may drop the promise: never an unhandled
  // rejection (the caller who awaits it still gets the error).
  done.catch(() => {});
  return done;
}

/**
 * The run, as the operation `uploads.upload` on the uploader's observer (when it has one), under the
 * caller's `parent`: the steps below, in order.
 */
function run(start: UploadStart, emit: Emit, signal: AbortSignal): Promise<UploadResponse> {
  const { settings, options } = start;
  return observed(
    settings.observer,
    { name: uploadOperation.name, ...uploaderOrigin(settings.http), parent: options.parent },
    async (parent) => {
      const input = checkInput(start);
      if (parent) settings.observer?.operationDetailed?.(parent, fileDetails(input.size, input.contentType));
      try {
        const upload = await uploadContext(start, input, emit, signal, parent);
        return await sendFile(upload, options.uploadId, settings.store);
      } catch (error) {
        const at = uploadStateOf(error)?.uploadId;
        if (at !== undefined && parent) settings.observer?.operationDetailed?.(parent, { uploadId: at });
        throw error;
      } finally {
        await input.source.close(signal.aborted ? signal.reason : undefined);
      }
    },
  );
}

/**
 * Step 0, check the input: the upload id to continue, the file's name, type and size, all locally, so
 * nothing is sent for a file the service would refuse; then the source, opened.
 */
function checkInput({ source, options }: UploadStart): CheckedInput {
  if (options.uploadId !== undefined) checkUploadId(options.uploadId);
  const opened = openSource(source, options.size);
  const details = fileDetailsOf(source, options);
  checkUpload({ fileName: details.fileName, contentType: details.contentType, size: opened.size });
  // Both are non-empty strings once checked.
  const { fileName, contentType } = details as { fileName: string; contentType: string };
  return { source: opened, size: opened.size, fileName, contentType };
}

/** What every phase reads: the settings, the checked input, and this upload's own defaults. */
async function uploadContext(
  { settings, options }: UploadStart,
  input: CheckedInput,
  emit: Emit,
  signal: AbortSignal,
  parent: ObservedOperation | undefined,
): Promise<UploadContext> {
  const { fileName, contentType } = input;
  // Metered from here: the result's `durationMs` covers the fingerprint too.
  const meter = meteredClient(settings.http, options);
  const fingerprint = await fingerprintOf(input.source, { fileName, contentType }, signal);
  const use = { logger: settings.logger, signal };
  const { store } = settings;
  return {
    ...settings,
    ...input,
    // Every call names the upload and its logger; the store's own object stays the caller's.
    store: {
      get: (key) => store.get(key, use),
      set: (key, record) => store.set(key, record, use),
      delete: (key) => store.delete(key, use),
    },
    options,
    meter,
    policy:
      options.retry === false ? { ...settings.retry, limit: 0 } : { ...settings.retry, ...options.retry },
    fingerprint,
    correlationId: options.correlationId ?? crypto.randomUUID(),
    signal,
    emit,
    parent,
  };
}

/**
 * The three phases. 1 and 2 run under the store's lock on this file when it has one: a second tab or
 * process given the same file waits, then continues this upload rather than send the file again.
 * Once the upload has an id, an error names it and the bytes the service confirmed: each phase names
 * its own, and what fails between phases is named here from what the last one handed on.
 */
async function sendFile(
  upload: UploadContext,
  uploadId: string | undefined,
  lock: ResumeStore,
): Promise<UploadResponse> {
  const { store, fingerprint, size } = upload;
  let reached: { uploadId: string; bytesAcknowledged: number } | undefined;
  let transferred: { bytes: number; ms: number } | undefined;
  try {
    const place = async () => {
      const placed = await resumeOrInitiate(upload, uploadId);
      reached = { uploadId: placed.uploadId, bytesAcknowledged: placed.resumedFrom };
      const began = performance.now();
      const sent = await sendChunks(upload, placed);
      transferred = { bytes: size - placed.resumedFrom, ms: performance.now() - began };
      reached = { uploadId: sent.uploadId, bytesAcknowledged: size };
      await store.delete(fingerprint);
      return sent;
    };
    const sent = await (lock.exclusive ? lock.exclusive(fingerprint, upload.signal, place) : place());
    const response = await finish(upload, sent);
    if (transferred) throughput(upload, transferred);
    return response;
  } catch (error) {
    throw reached === undefined ? error : withUploadState(error, { ...reached, fileSize: size });
  }
}

/** Tells the observer, when it counts throughput, the bytes phase 2 sent and the time it took. */
function throughput(upload: UploadContext, phase2: { bytes: number; ms: number }): void {
  if (phase2.bytes === 0) return;
  const format = formatBucket(upload.contentType);
  upload.observer?.uploadTransferred?.({ ...uploaderOrigin(upload.http), ...phase2, format });
}
