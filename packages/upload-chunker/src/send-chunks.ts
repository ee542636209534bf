/**
 * Phase 2 of an upload: the chunks, one after another from the byte the service holds, each with its
 * exact `Content-Range`, retried as tus-js-client does (the count of failures starts again whenever the
 * service confirms more bytes), the service's offset followed but never believed past the bytes sent.
 */
import { NetworkError, type PromoReviewError, unexpectedResponse } from "@promo-review/errors";
import { type RequestBody, retryDelay, sleep } from "@promo-review/http";
import { chunkBody, chunkEnd } from "./chunks.js";
import { claimBeyond } from "./failure.js";
import { createProgressTracker, type ProgressTracker } from "./progress.js";
import { type ChunkAnswer, classifyChunkFailure, putChunk } from "./put-chunk.js";
import type { Placement } from "./resume-or-initiate.js";
import type { UploadStatus } from "./types.js";
import type { UploadContext } from "./upload-context.js";
import { getUploadState } from "./wait.js";

/** What phase 2 hands to phase 3. */
export interface Sent {
  uploadId: string;
  resumedFrom: number;
  /** The status the last chunk answer (or the resume's status read) gave, if any. */
  status: UploadStatus | undefined;
  /** The correlation id of the service's last answer. */
  correlationId: string;
  /** Chunk attempts that failed and were retried. */
  retries: number;
}

/** Where the chunk loop stands; each helper below moves it on. */
interface ChunkLoop extends Sent {
  readonly upload: UploadContext;
  readonly uploadUrl: string;
  readonly progress: ProgressTracker;
  /** The next byte to send. */
  offset: number;
  chunkSize: number;
  /** Whether chunk bodies are streamed (false once a runtime refused the first streamed one). */
  streamed: boolean;
  /** A streamed PUT succeeded: stream bodies work here. */
  streamedOnce: boolean;
  /** Failed attempts since the last progress (tus: the counter resets on progress). */
  failures: number;
  /** Attempts of the chunk being sent. */
  chunkAttempts: number;
  /** Times the service's offset went back: bounded, and each one backed off. */
  moves: number;
  /**
   * The furthest byte the service may truthfully claim: what this upload sent, or, for a resumed
   * upload, the whole file (an earlier run may have sent any of it). A claim beyond it is a lie.
   */
  sentEnd: number;
}

/** One chunk: the bytes `[start, end)`. */
interface Chunk {
  start: number;
  end: number;
}

/** Phase 2: sends every byte from where phase 1 placed the upload, reporting progress. */
export async function sendChunks(upload: UploadContext, placed: Placement): Promise<Sent> {
  const { source, size, options } = upload;
  const { uploadId, resumedFrom } = placed;
  const loop: ChunkLoop = {
    upload,
    uploadId,
    uploadUrl: placed.uploadUrl,
    resumedFrom,
    progress: createProgressTracker(uploadId, size, resumedFrom, (p) => upload.emit("progress", p)),
    offset: resumedFrom,
    chunkSize: Math.min(placed.maxChunkSize, options.chunkSize ?? placed.maxChunkSize),
    streamed: upload.settings.streaming,
    streamedOnce: false,
    failures: 0,
    chunkAttempts: 0,
    retries: 0,
    moves: 0,
    sentEnd: placed.resumed ? size : 0,
    status: placed.status,
    correlationId: placed.correlationId,
  };
  source.release(loop.offset);
  while (loop.offset < size) {
    const chunk = { start: loop.offset, end: chunkEnd(loop.offset, loop.chunkSize, size) };
    const attempt = new AbortController(); // lets go of the body's reader once the PUT settles
    const body = await chunkBodyOf(loop, chunk, attempt.signal);
    loop.chunkAttempts++;
    try {
      const answer = await putChunk(upload.meter.http, {
        uploadUrl: loop.uploadUrl,
        ...chunk,
        total: size,
        body,
        signal: upload.signal,
        correlationId: upload.correlationId,
        timeoutMs: options.timeoutMs ?? upload.settings.chunkTimeoutMs,
      }).finally(() => attempt.abort());
      await accepted(loop, chunk, answer);
    } catch (error) {
      await failed(loop, chunk, error);
    }
  }
  loop.progress.flush();
  const { status, correlationId, retries } = loop;
  return { uploadId, resumedFrom, status, correlationId, retries };
}

/**
 * The body of one attempt at `chunk`. A stream source is read up to `readAheadBytes` past the chunk
 * while it is on the wire, so reading and sending overlap. A streamed body takes each piece as soon as
 * it is read; a whole body needs the chunk read first, and so does the last chunk: a stream of the
 * wrong length then fails before the service could complete a wrong file.
 */
async function chunkBodyOf(
  loop: ChunkLoop,
  { start, end }: Chunk,
  settled: AbortSignal,
): Promise<RequestBody> {
  const { source, size, settings, signal } = loop.upload;
  source.prefetch(Math.min(size, end + settings.readAheadBytes));
  if (!loop.streamed || end === size) await source.load(start, end, signal);
  let pulled = 0;
  const onSent = (bytes: number) => {
    pulled += bytes;
    loop.progress.sent(start + pulled);
  };
  return chunkBody(source.range(start, end), loop.streamed, onSent, settled);
}

/** The service took the chunk: move to the offset it names, if it is one that could be true. */
async function accepted(loop: ChunkLoop, { start, end }: Chunk, answer: ChunkAnswer): Promise<void> {
  const { upload, progress } = loop;
  progress.sent(end);
  loop.streamedOnce ||= loop.streamed;
  loop.sentEnd = Math.max(loop.sentEnd, end);
  loop.correlationId = answer.correlationId;
  loop.status = answer.status;
  const next = answer.receivedBytes;
  if (next > loop.sentEnd) {
    throw claimBeyond("uploads.putChunk", "receivedBytes", next, loop.sentEnd, answer.correlationId);
  }
  const { uploadId, chunkAttempts: attempts, streamed } = loop;
  upload.emit("chunk", { uploadId, start, end, attempts, streamed, receivedBytes: next });
  loop.chunkAttempts = 0;
  if (next > loop.offset) {
    loop.failures = 0;
  } else if (++loop.failures > upload.policy.limit) {
    throw unexpectedResponse({
      operation: "uploads.putChunk",
      field: "receivedBytes",
      problem: `stayed at byte ${next} after the chunk at byte ${start} was accepted ${loop.failures} times`,
      correlationId: answer.correlationId,
    });
  }
  upload.reached.acknowledged = next;
  progress.acknowledged(next);
  loop.offset = next;
  upload.source.release(next);
  if (next < start) await movedBack(loop, { start, end: next }, undefined, answer.correlationId);
}

/**
 * The PUT failed (or its answer could not be true): stop, use smaller chunks, follow the service to
 * the offset it expects, or wait and send the same range again, within the retry limit.
 */
async function failed(loop: ChunkLoop, chunk: Chunk, raw: unknown): Promise<void> {
  const { upload } = loop;
  if (upload.signal.aborted) throw raw;
  // A stream that failed or proved shorter than declared while its bytes were being sent.
  if (upload.source.failure !== undefined) throw upload.source.failure;
  const error = raw as PromoReviewError;
  if (loop.streamed && !loop.streamedOnce && error instanceof NetworkError) {
    // A runtime that refuses stream bodies (a browser on HTTP/1.1) fails the very first one as a
    // network error: send whole chunks from now on (this upload only ever loses fine-grained
    // progress by it). Counted as an ordinary failed attempt below.
    loop.streamed = false;
  }
  const failure = classifyChunkFailure(error);
  if (failure.action === "fail") throw error;
  if (failure.action === "shrink") {
    if (failure.maxChunkSize >= chunk.end - chunk.start) throw error;
    loop.chunkSize = failure.maxChunkSize;
    const record = { uploadId: loop.uploadId, maxChunkSize: loop.chunkSize, fileSize: upload.size };
    await upload.settings.store.set(upload.fingerprint, record);
    return;
  }
  if (++loop.failures > upload.policy.limit) throw error;
  loop.retries++;
  if (failure.action === "resync" && (await resynced(loop, chunk, failure.offset, error))) return;
  const delayMs = retryDelay(error, loop.failures, upload.policy);
  upload.emit("retry", { uploadId: loop.uploadId, ...chunk, attempt: loop.failures, delayMs, error });
  await sleep(delayMs, upload.signal);
}

/**
 * After a 409: moves the loop to the offset the service expects (`offset`, else its status read) and
 * says so, or returns false when neither named one other than the chunk's start. Neither shape is shown
 * in the spec: the same range is then sent again after the backoff (a repeat of a range is harmless).
 */
async function resynced(
  loop: ChunkLoop,
  { start }: Chunk,
  offset: number | undefined,
  error: PromoReviewError,
): Promise<boolean> {
  const { upload } = loop;
  const expected = offset ?? (await getUploadState(upload.meter.http, loop.uploadId, upload)).receivedBytes;
  if (expected !== undefined && expected > loop.sentEnd) {
    const field = offset === undefined ? "receivedBytes" : "content_range_start";
    throw claimBeyond("uploads.putChunk", field, expected, loop.sentEnd, error.correlationId);
  }
  if (expected === undefined || expected === start) return false;
  // The service is elsewhere: ahead (the chunk landed, its answer was lost) or behind.
  if (expected > start) loop.failures = 0;
  else await movedBack(loop, { start, end: expected }, error, error.correlationId ?? upload.correlationId);
  loop.offset = expected;
  if (expected > upload.reached.acknowledged) {
    upload.reached.acknowledged = expected;
    loop.progress.acknowledged(expected);
  }
  upload.source.release(Math.min(expected, start));
  loop.chunkAttempts = 0;
  return true;
}

/**
 * Counts a backward move of the service's offset (from `move.start` to `move.end`) and waits a growing,
 * jittered pause; past `maxResyncs` moves the upload ends with `UNEXPECTED_RESPONSE`.
 */
async function movedBack(
  loop: ChunkLoop,
  move: Chunk,
  error: PromoReviewError | undefined,
  correlationId: string,
): Promise<void> {
  const { upload } = loop;
  const { maxResyncs } = upload.settings;
  const moved = (problem: string) =>
    unexpectedResponse({ operation: "uploads.putChunk", field: "receivedBytes", problem, correlationId });
  if (++loop.moves > maxResyncs) {
    throw moved(
      `moved back ${loop.moves} times (last from byte ${move.start} to ${move.end}); the upload stops after ${maxResyncs}`,
    );
  }
  loop.retries++;
  const { policy } = upload;
  const delayMs = retryDelay(undefined, loop.moves, { ...policy, random: () => 0.5 + policy.random() / 2 });
  upload.emit("retry", {
    uploadId: loop.uploadId,
    start: move.start,
    end: move.start,
    attempt: loop.moves,
    delayMs,
    error: error ?? moved(`moved back to ${move.end}`),
  });
  await sleep(delayMs, upload.signal);
}
