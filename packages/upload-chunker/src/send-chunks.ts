/**
 * Phase 2 of an upload: the chunks, one after another from the byte the service holds, each with its
 * exact `Content-Range`, retried as tus-js-client does (the count of failures starts again whenever the
 * service confirms more bytes), the service's offset followed but never believed past the bytes sent.
 */
import { NetworkError, type PromoReviewError } from "@promo-review/errors";
import { unexpectedResponse } from "@promo-review/errors/internal";
import type { ChunkOutcome } from "@promo-review/errors/observe";
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
  readonly uploadId: string;
  readonly resumedFrom: number;
  /** The status the last chunk answer (or the resume's status read) gave, if any. */
  status: UploadStatus | undefined;
  /** The correlation id of the service's last answer. */
  lastCorrelationId: string;
  /** Chunk attempts that failed and were retried. */
  retries: number;
}

/** The upload while its chunks are sent: where the loop stands; each helper below moves it on. */
interface ChunkLoop extends UploadContext, Sent {
  readonly uploadUrl: string;
  readonly progress: ProgressTracker;
  /** The chunk being sent: the bytes `[start, end)`. */
  start: number;
  end: number;
  chunkSize: number;
  /** Whether chunk bodies are streamed (false once a runtime refused the first streamed one). */
  streamed: boolean;
  /** A streamed PUT succeeded: stream bodies work here. */
  streamedOnce: boolean;
  /** Failed attempts since the last progress (tus: the counter resets on progress). */
  failures: number;
  /** Attempts of the chunk being sent. */
  attempts: number;
  /** Times the service's offset went back: bounded, and each one backed off. */
  moves: number;
  /**
   * The furthest byte the service may truthfully claim: what this upload sent, or, for a resumed
   * upload, the whole file (an earlier run may have sent any of it). A claim beyond it is a lie.
   */
  sentEnd: number;
}

/** Phase 2: sends every byte from where phase 1 placed the upload, reporting progress. */
export async function sendChunks(upload: UploadContext, placed: Placement): Promise<Sent> {
  const { uploadId, resumedFrom, maxChunkSize } = placed;
  const loop: ChunkLoop = {
    ...upload,
    ...placed,
    progress: createProgressTracker(uploadId, upload.size, resumedFrom, (p) => upload.emit("progress", p)),
    start: resumedFrom,
    end: resumedFrom,
    chunkSize: Math.min(maxChunkSize, upload.options.chunkSize ?? maxChunkSize),
    streamed: upload.streaming,
    streamedOnce: false,
    failures: 0,
    attempts: 0,
    retries: 0,
    moves: 0,
    sentEnd: placed.status ? upload.size : 0,
  };
  if (loop.parent) loop.observer?.operationDetailed?.(loop.parent, { "upload.chunkSize": loop.chunkSize });
  loop.source.release(resumedFrom);
  while (loop.start < loop.size) {
    loop.end = chunkEnd(loop.start, loop.chunkSize, loop.size);
    const attempt = new AbortController(); // lets go of the body's reader once the PUT settles
    const body = await chunkBodyOf(loop, attempt.signal);
    loop.attempts++;
    const sending = { start: loop.start, end: loop.end, attempt: loop.attempts };
    try {
      const timeoutMs = loop.options.timeoutMs ?? loop.chunkTimeoutMs;
      const answer = await putChunk(loop.meter.http, loop, body, timeoutMs).finally(() => attempt.abort());
      await accepted(loop, answer, sending);
    } catch (error) {
      await failed(loop, error, sending).catch((final: unknown) => {
        traceChunk(loop, sending, "failed", final);
        throw final;
      });
    }
  }
  loop.progress.flush();
  return loop;
}

/**
 * The body of one attempt at the chunk. A stream source is read up to `readAheadBytes` past the chunk
 * while it is on the wire, so reading and sending overlap. A streamed body takes each piece as soon as
 * it is read; a whole body needs the chunk read first, and so does the last chunk: a stream of the
 * wrong length then fails before the service could complete a wrong file.
 */
async function chunkBodyOf(loop: ChunkLoop, settled: AbortSignal): Promise<RequestBody> {
  const { source, start, end, size } = loop;
  source.prefetch(Math.min(size, end + loop.readAheadBytes));
  if (!loop.streamed || end === size) await source.load(start, end, loop.signal);
  let pulled = 0;
  const onSent = (bytes: number) => {
    pulled += bytes;
    loop.progress.sent(start + pulled);
  };
  return chunkBody(source.range(start, end), loop.streamed, onSent, settled);
}

/** One attempt at a chunk: the bytes `[start, end)` and its number among the attempts at this range. */
interface ChunkAttempt {
  readonly start: number;
  readonly end: number;
  readonly attempt: number;
}

/** Tells the upload's observer how the attempt went, when the upload is observed. */
function traceChunk(loop: ChunkLoop, sending: ChunkAttempt, outcome: ChunkOutcome, error?: unknown): void {
  if (loop.parent) loop.observer?.uploadChunk?.({ parent: loop.parent, ...sending, outcome, error });
}

/** The service took the chunk: move to the offset it names, if it is one that could be true. */
async function accepted(loop: ChunkLoop, answer: ChunkAnswer, sending: ChunkAttempt): Promise<void> {
  const { start, end, progress } = loop;
  progress.sent(end);
  loop.streamedOnce ||= loop.streamed;
  loop.sentEnd = Math.max(loop.sentEnd, end);
  loop.lastCorrelationId = answer.correlationId;
  loop.status = answer.status;
  const next = answer.receivedBytes;
  if (next > loop.sentEnd) {
    throw claimBeyond("uploads.putChunk", "receivedBytes", next, loop.sentEnd, answer.correlationId);
  }
  const { uploadId, attempts, streamed } = loop;
  traceChunk(loop, sending, "acknowledged");
  loop.emit("chunk", { uploadId, start, end, attempts, streamed, receivedBytes: next });
  loop.attempts = 0;
  if (next > start) {
    loop.failures = 0;
  } else if (++loop.failures > loop.policy.limit) {
    throw unexpectedResponse({
      operation: "uploads.putChunk",
      field: "receivedBytes",
      problem: `stayed at byte ${next} after the chunk at byte ${start} was accepted ${loop.failures} times`,
      correlationId: answer.correlationId,
    });
  }
  loop.reached.acknowledged = next;
  progress.acknowledged(next);
  loop.start = next;
  loop.source.release(next);
  if (next < start) await movedBack(loop, start, next, undefined, answer.correlationId);
}

/**
 * The PUT failed (or its answer could not be true): stop, use smaller chunks, follow the service to
 * the offset it expects, or wait and send the same range again, within the retry limit.
 */
async function failed(loop: ChunkLoop, raw: unknown, sending: ChunkAttempt): Promise<void> {
  const { start, end, policy } = loop;
  if (loop.signal.aborted) throw raw;
  // A stream that failed or proved shorter than declared while its bytes were being sent.
  if (loop.source.failure !== undefined) throw loop.source.failure;
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
    if (failure.maxChunkSize >= end - start) throw error;
    loop.chunkSize = failure.maxChunkSize;
    traceChunk(loop, sending, "shrunk", error);
    const record = { uploadId: loop.uploadId, maxChunkSize: loop.chunkSize, fileSize: loop.size };
    await loop.store.set(loop.fingerprint, record);
    return;
  }
  if (++loop.failures > policy.limit) throw error;
  loop.retries++;
  if (failure.action === "resync" && (await resynced(loop, failure.offset, error))) {
    traceChunk(loop, sending, "resynced", error);
    return;
  }
  traceChunk(loop, sending, "retried", error);
  const delayMs = retryDelay(error, loop.failures, policy);
  loop.emit("retry", { uploadId: loop.uploadId, start, end, attempt: loop.failures, delayMs, error });
  await sleep(delayMs, loop.signal);
}

/**
 * After a 409: moves the loop to the offset the service expects (`offset`, else its status read) and
 * says so, or returns false when neither named one other than the chunk's start. Neither shape is shown
 * in the spec: the same range is then sent again after the backoff (a repeat of a range is harmless).
 */
async function resynced(
  loop: ChunkLoop,
  offset: number | undefined,
  error: PromoReviewError,
): Promise<boolean> {
  const { start, reached } = loop;
  const expected = offset ?? (await getUploadState(loop.meter.http, loop.uploadId, loop)).receivedBytes;
  if (expected !== undefined && expected > loop.sentEnd) {
    const field = offset === undefined ? "receivedBytes" : "content_range_start";
    throw claimBeyond("uploads.putChunk", field, expected, loop.sentEnd, error.correlationId);
  }
  if (expected === undefined || expected === start) return false;
  // The service is elsewhere: ahead (the chunk landed, its answer was lost) or behind.
  if (expected > start) loop.failures = 0;
  else await movedBack(loop, start, expected, error, error.correlationId ?? loop.correlationId);
  loop.start = expected;
  if (expected > reached.acknowledged) {
    reached.acknowledged = expected;
    loop.progress.acknowledged(expected);
  }
  loop.source.release(Math.min(expected, start));
  loop.attempts = 0;
  return true;
}

/**
 * Counts a backward move of the service's offset (`from` to `to`) and waits a growing, jittered
 * pause; past `maxResyncs` moves the upload ends with `UNEXPECTED_RESPONSE`.
 */
async function movedBack(
  loop: ChunkLoop,
  from: number,
  to: number,
  error: PromoReviewError | undefined,
  correlationId: string,
): Promise<void> {
  const { maxResyncs, policy } = loop;
  const moved = (problem: string) =>
    unexpectedResponse({ operation: "uploads.putChunk", field: "receivedBytes", problem, correlationId });
  if (++loop.moves > maxResyncs) {
    throw moved(
      `moved back ${loop.moves} times (last from byte ${from} to ${to}); the upload stops after ${maxResyncs}`,
    );
  }
  loop.retries++;
  const delayMs = retryDelay(undefined, loop.moves, { ...policy, random: () => 0.5 + policy.random() / 2 });
  const reason = error ?? moved(`moved back to ${to}`);
  loop.emit("retry", {
    uploadId: loop.uploadId,
    start: from,
    end: from,
    attempt: loop.moves,
    delayMs,
    error: reason,
  });
  await sleep(delayMs, loop.signal);
}
