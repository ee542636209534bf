/**
 * One upload from start to finish: local checks, resume or initiate, the chunk loop with per-chunk
 * retries, and the wait for `completed`. The lifecycle object (`upload.ts`) runs this.
 */
import { NetworkError, NotFoundError, PromoReviewError, unexpectedResponse } from "@promo-review/errors";
import {
  type CallControl,
  type HttpClient,
  type RetryPolicy,
  retryDelay,
  sleep,
  type WithResponse,
  withResponse,
} from "@promo-review/http";
import { checkUpload } from "./checks.js";
import { chunkBody, chunkEnd } from "./chunks.js";
import { withUploadState } from "./failure.js";
import { fileDetailsOf } from "./file-details.js";
import { initiateUpload, uploadPath } from "./initiate.js";
import { meteredClient } from "./metered-client.js";
import { createProgressTracker, type UploadProgress } from "./progress.js";
import { classifyChunkFailure, putChunk } from "./put-chunk.js";
import { fingerprintOf, type ResumeStore } from "./resume-store.js";
import { openSource } from "./sources.js";
import type { UploadSource } from "./types.js";
import { checkUploadId, getUploadState, type UploadState, type UploadStatus, waitForUpload } from "./wait.js";

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
  /** The size in bytes: required for a stream or async iterable, checked against a Blob or bytes. */
  size?: number;
  /** Stops reading, the chunk in flight and every wait, at once. */
  signal?: AbortSignal;
  /** Called with every progress report (also emitted as `progress` on the lifecycle object). */
  onProgress?: (progress: UploadProgress) => void;
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

/** What the uploader shares with each upload. */
export interface TransferContext {
  http: HttpClient;
  store: ResumeStore;
  /** Per-chunk retry policy: `limit` failed attempts in a row without progress end the upload. */
  retry: RetryPolicy;
  streaming: boolean;
  /** How far a stream source is read past the chunk being sent (see `UploaderOptions.readAheadBytes`). */
  readAheadBytes: number;
  pollIntervalMs: number;
  chunkTimeoutMs: number;
  /** Times the service may move its offset back before the upload ends (see `UploaderOptions.maxResyncs`). */
  maxResyncs: number;
}

/** The chunk size a resumed upload starts from when nothing says better. */
export const RESUME_CHUNK_SIZE = 8 * 1024 * 1024;

/** Runs one upload. `resumeId` continues that upload instead of looking one up or initiating. */
export async function transfer(
  context: TransferContext,
  source: UploadSource,
  options: UploadOptions,
  emit: <E extends keyof UploadEvents>(event: E, ...args: UploadEvents[E]) => void,
  signal: AbortSignal,
  resumeId?: string,
): Promise<UploadResponse> {
  const { store } = context;
  const meter = meteredClient(context.http, options);
  const http = meter.http;
  const policy: RetryPolicy =
    options.retry === false ? { ...context.retry, limit: 0 } : { ...context.retry, ...options.retry };
  if (resumeId !== undefined) checkUploadId(resumeId);
  const src = openSource(source, options.size);
  const size = src.size;
  const details = fileDetailsOf(source, options);
  checkUpload({ fileName: details.fileName, contentType: details.contentType, size });
  // Both are non-empty strings once checked.
  const fileName = details.fileName as string;
  const contentType = details.contentType as string;
  const correlationId = options.correlationId ?? crypto.randomUUID();
  const request = { signal, correlationId };
  let uploadId: string | undefined;
  let acknowledged = 0;
  try {
    const fingerprint = await fingerprintOf(src, { fileName, contentType }, signal);
    const remembered = await store.get(fingerprint);
    let state: UploadState | undefined;
    let maxChunkSize: number | undefined;
    let uploadUrl: string;
    let lastCorrelationId = correlationId;
    if (resumeId !== undefined) {
      uploadId = resumeId;
      state = await getUploadState(http, resumeId, request);
      maxChunkSize = remembered?.uploadId === resumeId ? remembered.maxChunkSize : undefined;
    } else if (remembered && remembered.fileSize === size) {
      state = await getUploadState(http, remembered.uploadId, request).catch((error: unknown) => {
        // An upload the service no longer knows is simply started again.
        if (error instanceof NotFoundError) return undefined;
        throw error;
      });
      if (state && state.status !== "failed" && (state.fileSize ?? size) === size) {
        uploadId = remembered.uploadId;
        maxChunkSize = remembered.maxChunkSize;
      } else {
        state = undefined;
        await store.delete(fingerprint);
      }
    }
    if (state && uploadId !== undefined) {
      if (state.fileSize !== undefined && state.fileSize !== size) {
        throw new PromoReviewError({
          code: "VALIDATION_ERROR",
          message: `Upload ${uploadId} expects ${state.fileSize} bytes but the source holds ${size}; resume it with the same file`,
          correlationId: state.correlationId,
        });
      }
      if (state.status === "failed") {
        throw new PromoReviewError({
          code: "UPLOAD_FAILED",
          message: `The file service marked upload ${uploadId} failed; upload the file again`,
          correlationId: state.correlationId,
        });
      }
      if ((state.receivedBytes ?? 0) > size) {
        throw claimBeyond(
          "uploads.status",
          "receivedBytes",
          state.receivedBytes ?? 0,
          size,
          state.correlationId,
        );
      }
      acknowledged = state.status === "completed" ? size : (state.receivedBytes ?? 0);
      lastCorrelationId = state.correlationId;
      uploadUrl = uploadPath(uploadId);
      maxChunkSize ??= options.chunkSize ?? RESUME_CHUNK_SIZE;
      if (!remembered || remembered.uploadId !== uploadId) {
        await store.set(fingerprint, { uploadId, maxChunkSize, fileSize: size });
      }
    } else {
      const initiated = await initiateUpload(http, { fileName, fileSize: size, contentType }, request);
      uploadId = initiated.uploadId;
      uploadUrl = initiated.uploadUrl;
      maxChunkSize = initiated.maxChunkSize;
      lastCorrelationId = initiated.correlationId;
      await store.set(fingerprint, { uploadId, maxChunkSize, fileSize: size });
    }
    const resumedFrom = acknowledged;
    const id = uploadId;
    emit("initiated", { uploadId: id, maxChunkSize, resumedFrom });
    const progress = createProgressTracker(id, size, resumedFrom, (p) => emit("progress", p));

    let chunkSize = Math.min(maxChunkSize, options.chunkSize ?? maxChunkSize);
    let offset = acknowledged;
    let streamed = context.streaming;
    let streamedOnce = false; // a streamed PUT succeeded: stream bodies work here
    let failures = 0; // failed attempts since the last progress (tus: the counter resets on progress)
    let chunkAttempts = 0;
    let retries = 0;
    let lastStatus: UploadStatus | undefined = state?.status;
    // The furthest byte the service may truthfully claim: what this upload sent, or, for a resumed
    // upload, the whole file (an earlier run may have sent any of it). A claim beyond it is a lie.
    let sentEnd = state ? size : 0;
    let moves = 0; // times the service's offset went back: bounded, and each one backed off
    /** Counts a backward move of the service's offset and waits (a growing, jittered pause). */
    const movedBack = async (from: number, to: number, error: PromoReviewError | undefined, at: string) => {
      if (++moves > context.maxResyncs) {
        throw unexpectedResponse({
          operation: "uploads.putChunk",
          field: "receivedBytes",
          problem: `moved back ${moves} times (last from byte ${from} to ${to}); the upload stops after ${context.maxResyncs}`,
          correlationId: at,
        });
      }
      retries++;
      const delayMs = retryDelay(undefined, moves, { ...policy, random: () => 0.5 + policy.random() / 2 });
      emit("retry", {
        uploadId: id,
        start: from,
        end: from,
        attempt: moves,
        delayMs,
        error:
          error ??
          unexpectedResponse({
            operation: "uploads.putChunk",
            field: "receivedBytes",
            problem: `moved back to ${to}`,
            correlationId: at,
          }),
      });
      await sleep(delayMs, signal);
    };
    src.release(offset);
    while (offset < size) {
      const start = offset;
      const end = chunkEnd(start, chunkSize, size);
      // A stream source is read up to `readAheadBytes` past this chunk while it is on the wire, so
      // reading and sending overlap. A streamed body takes each piece as soon as it is read; a whole
      // body needs the chunk read first, and so does the last chunk: a stream of the wrong length then
      // fails before the service could complete a wrong file.
      src.prefetch(Math.min(size, end + context.readAheadBytes));
      if (!streamed || end === size) await src.load(start, end, signal);
      let pulled = 0;
      const attempt = new AbortController(); // lets go of the body's reader once the PUT settles
      const body = chunkBody(
        src.range(start, end),
        streamed,
        (bytes) => {
          pulled += bytes;
          progress.sent(start + pulled);
        },
        attempt.signal,
      );
      chunkAttempts++;
      try {
        const answer = await putChunk(http, {
          uploadUrl,
          start,
          end,
          total: size,
          body,
          signal,
          correlationId,
          timeoutMs: options.timeoutMs ?? context.chunkTimeoutMs,
        }).finally(() => attempt.abort());
        progress.sent(end);
        streamedOnce ||= streamed;
        sentEnd = Math.max(sentEnd, end);
        lastCorrelationId = answer.correlationId;
        lastStatus = answer.status;
        const next = answer.receivedBytes;
        if (next > sentEnd) {
          throw claimBeyond("uploads.putChunk", "receivedBytes", next, sentEnd, answer.correlationId);
        }
        emit("chunk", { uploadId: id, start, end, attempts: chunkAttempts, streamed, receivedBytes: next });
        chunkAttempts = 0;
        if (next > offset) {
          failures = 0;
        } else if (++failures > policy.limit) {
          throw unexpectedResponse({
            operation: "uploads.putChunk",
            field: "receivedBytes",
            problem: `stayed at byte ${next} after the chunk at byte ${start} was accepted ${failures} times`,
            correlationId: answer.correlationId,
          });
        }
        acknowledged = next;
        progress.acknowledged(next);
        offset = next;
        src.release(offset);
        if (next < start) await movedBack(start, next, undefined, answer.correlationId);
      } catch (raw) {
        if (signal.aborted) throw raw;
        // A stream that failed or proved shorter than declared while its bytes were being sent.
        if (src.failure !== undefined) throw src.failure;
        const error = raw as PromoReviewError;
        if (streamed && !streamedOnce && error instanceof NetworkError) {
          // A runtime that refuses stream bodies (a browser on HTTP/1.1) fails the very first one as a
          // network error: send whole chunks from now on (this upload only ever loses fine-grained
          // progress by it). Counted as an ordinary failed attempt below.
          streamed = false;
        }
        const failure = classifyChunkFailure(error);
        if (failure.action === "fail") throw error;
        if (failure.action === "shrink") {
          if (failure.maxChunkSize >= end - start) throw error;
          chunkSize = failure.maxChunkSize;
          await store.set(fingerprint, { uploadId: id, maxChunkSize: chunkSize, fileSize: size });
          continue;
        }
        if (++failures > policy.limit) throw error;
        retries++;
        if (failure.action === "resync") {
          const expected = failure.offset ?? (await getUploadState(http, id, request)).receivedBytes;
          if (expected !== undefined && expected > sentEnd) {
            const field = failure.offset === undefined ? "receivedBytes" : "content_range_start";
            throw claimBeyond("uploads.putChunk", field, expected, sentEnd, error.correlationId);
          }
          // Neither the 409 nor the status named the offset (both shapes are not shown): the same range
          // is sent again after the backoff, within the retry limit (a repeat of a range is harmless).
          if (expected !== undefined && expected !== start) {
            // The service is elsewhere: ahead (the chunk landed, its answer was lost) or behind.
            if (expected > start) failures = 0;
            else await movedBack(start, expected, error, error.correlationId ?? correlationId);
            offset = expected;
            if (expected > acknowledged) {
              acknowledged = offset;
              progress.acknowledged(offset);
            }
            src.release(Math.min(offset, start));
            chunkAttempts = 0;
            continue;
          }
        }
        const delayMs = retryDelay(error, failures, policy);
        emit("retry", { uploadId: id, start, end, attempt: failures, delayMs, error });
        await sleep(delayMs, signal);
      }
    }
    progress.flush();
    await store.delete(fingerprint);
    let status: UploadStatus = lastStatus ?? "uploading";
    if (options.waitForCompletion !== false && status !== "completed") {
      const done = await waitForUpload(http, id, {
        signal,
        correlationId,
        pollIntervalMs: context.pollIntervalMs,
        ...(options.waitTimeoutMs === undefined ? {} : { timeoutMs: options.waitTimeoutMs }),
      });
      status = done.status;
      lastCorrelationId = done.correlationId;
    }
    const result = { uploadId: id, status, fileSize: size, fileName, correlationId: lastCorrelationId };
    // Every path here had an answer (initiation or a status read), so the meter has one.
    return withResponse({ ...result, resumedFrom, retries }, meter.metadata()!);
  } catch (error) {
    throw uploadId === undefined
      ? error
      : withUploadState(error, { uploadId, bytesAcknowledged: acknowledged, fileSize: size });
  } finally {
    await src.close(signal.aborted ? signal.reason : undefined);
  }
}

/** The service claimed more bytes than were sent (or than the file holds): an `UNEXPECTED_RESPONSE`. */
function claimBeyond(
  operation: string,
  field: string,
  claimed: number,
  sent: number,
  correlationId: string | undefined,
): PromoReviewError {
  return unexpectedResponse({
    operation,
    field,
    problem: `claims byte ${claimed} was received, but only ${sent} bytes were sent; nothing is reported stored that was not`,
    correlationId,
  });
}
