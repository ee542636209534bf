/**
 * Phase 2 of an upload: the chunks, one after another from the byte the service holds, each with its
 * exact `Content-Range`, retried as tus-js-client does (the count of failures starts again whenever the
 * service confirms more bytes), the service's offset followed but never believed past the bytes sent.
 *
 * The loop hands a small value from one attempt to the next (`Standing`: where it is, what it
 * counted, what the service said); each step below takes it and returns the next one, editing nothing.
 */
import { NetworkError, type PromoReviewError } from "@promo-review/errors";
import { unexpectedResponse } from "@promo-review/errors/internal";
import type { ChunkOutcome } from "@promo-review/errors/observe";
import { type RequestBody, retryDelay, sleep } from "@promo-review/http";
import { chunkBody, chunkEnd } from "./chunks.js";
import { claimBeyond, withUploadState } from "./failure.js";
import { createProgressTracker, type ProgressTracker } from "./progress.js";
import { type ChunkAnswer, classifyChunkFailure, putChunk } from "./put-chunk.js";
import { putChunkRoute } from "./routes.js";
import type { Placement, Sent, UploadContext, UploadProgress, UploadStatus } from "./types.js";
import { getUploadState } from "./wait.js";

/** What the loop reads and never changes: the upload, where phase 1 placed it, its progress. */
interface ChunkRun extends UploadContext {
  readonly uploadId: string;
  readonly uploadUrl: string;
  readonly progress: ProgressTracker;
}

/** Where the loop stands between two attempts: each step returns the next one. */
interface Standing {
  /** The next byte to send. */
  readonly start: number;
  readonly chunkSize: number;
  /** Whether chunk bodies are streamed (false once a runtime refused the first streamed one). */
  readonly streamed: boolean;
  /** A streamed PUT succeeded: stream bodies work here. */
  readonly streamedOnce: boolean;
  /** Failed attempts since the last progress (tus: the counter resets on progress). */
  readonly failures: number;
  /** Attempts of the range at `start` so far. */
  readonly attempts: number;
  /** Times the service's offset went back: bounded, and each one backed off. */
  readonly moves: number;
  /** Chunk attempts that failed and were retried, and backward moves. */
  readonly retries: number;
  /**
   * The furthest byte the service may truthfully claim: what this upload sent, or, for a resumed
   * upload, the whole file (an earlier run may have sent any of it). A claim beyond it is a lie.
   */
  readonly sentEnd: number;
  /** The bytes the service confirmed last, which an error of the upload names. */
  readonly acknowledged: number;
  /** What the service's last answer said: the upload's status, if any, and its correlation id. */
  readonly status: UploadStatus | undefined;
  readonly lastCorrelationId: string;
}

/** One attempt at a chunk: the bytes `[start, end)` and its number among the attempts at this range. */
interface ChunkAttempt {
  readonly start: number;
  readonly end: number;
  readonly attempt: number;
}

/**
 * Phase 2: sends every byte from where phase 1 placed the upload, reporting progress. An error names
 * the upload and the bytes the service confirmed.
 */
export async function sendChunks(upload: UploadContext, placed: Placement): Promise<Sent> {
  const { uploadId, uploadUrl, resumedFrom, maxChunkSize } = placed;
  const { size, parent, observer } = upload;
  const report = (progress: UploadProgress) => upload.emit("progress", progress);
  const run: ChunkRun = {
    ...upload,
    uploadId,
    uploadUrl,
    progress: createProgressTracker(uploadId, size, resumedFrom, report),
  };
  let at: Standing = {
    start: resumedFrom,
    chunkSize: Math.min(maxChunkSize, upload.options.chunkSize ?? maxChunkSize),
    streamed: upload.streaming,
    streamedOnce: false,
    failures: 0,
    attempts: 0,
    moves: 0,
    retries: 0,
    sentEnd: placed.status ? size : 0,
    acknowledged: resumedFrom,
    status: placed.status,
    lastCorrelationId: placed.lastCorrelationId,
  };
  if (parent) observer?.operationDetailed?.(parent, { "upload.chunkSize": at.chunkSize });
  upload.source.release(resumedFrom);
  try {
    while (at.start < size) at = await sendChunk(run, at);
  } catch (error) {
    throw withUploadState(error, { uploadId, bytesAcknowledged: at.acknowledged, fileSize: size });
  }
  run.progress.flush();
  const { status, lastCorrelationId, retries } = at;
  return { uploadId, resumedFrom, status, lastCorrelationId, retries };
}

/** One attempt at the chunk at `at.start`: what the service said moves the loop on, or stops it. */
async function sendChunk(run: ChunkRun, at: Standing): Promise<Standing> {
  const sending = {
    start: at.start,
    end: chunkEnd(at.start, at.chunkSize, run.size),
    attempt: at.attempts + 1,
  };
  const settled = new AbortController(); // lets go of the body's reader once the PUT settles
  const body = await chunkBodyOf(run, at, sending.end, settled.signal);
  const trying = { ...at, attempts: sending.attempt };
  let answered: Standing | undefined;
  try {
    const timeoutMs = run.options.timeoutMs ?? run.chunkTimeoutMs;
    const target = { ...run, ...sending };
    const answer = await putChunk(run.meter.http, target, body, timeoutMs).finally(() => settled.abort());
    answered = accepted(run, trying, answer, sending);
    if (answered.start >= sending.start) return answered;
    return await movedBack(run, answered, sending.start, answered.start, undefined, answer.correlationId);
  } catch (error) {
    // An error names the bytes confirmed when it was raised: a move back counts as confirmed.
    const standing = answered ?? trying;
    return failed(run, standing, error, sending).catch((final: unknown) => {
      traceChunk(run, sending, "failed", final);
      const reached = { uploadId: run.uploadId, bytesAcknowledged: standing.acknowledged };
      throw withUploadState(final, { ...reached, fileSize: run.size });
    });
  }
}

/**
 * The body of one attempt at the chunk `[at.start, end)`. A stream source is read up to
 * `readAheadBytes` past the chunk while it is on the wire, so reading and sending overlap. A streamed
 * body takes each piece as soon as it is read; a whole body needs the chunk read first, and so does the
 * last chunk: a stream of the wrong length then fails before the service could complete a wrong file.
 */
async function chunkBodyOf(
  run: ChunkRun,
  at: Standing,
  end: number,
  settled: AbortSignal,
): Promise<RequestBody> {
  const { source, size, readAheadBytes, signal } = run;
  const { start, streamed } = at;
  source.prefetch(Math.min(size, end + readAheadBytes));
  if (!streamed || end === size) await source.load(start, end, signal);
  let pulled = 0;
  const onSent = (bytes: number) => {
    pulled += bytes;
    run.progress.sent(start + pulled);
  };
  return chunkBody(source.range(start, end), streamed, onSent, settled);
}

/** Tells the upload's observer how the attempt went, when the upload is observed. */
function traceChunk(run: ChunkRun, sending: ChunkAttempt, outcome: ChunkOutcome, error?: unknown): void {
  const { parent, observer } = run;
  if (parent) observer?.uploadChunk?.({ parent, ...sending, outcome, error });
}

/**
 * The service took the chunk: move to the offset it names, if it is one that could be true. A move
 * back is the caller's to wait out (`movedBack`).
 */
function accepted(run: ChunkRun, at: Standing, answer: ChunkAnswer, sending: ChunkAttempt): Standing {
  const { start, end } = sending;
  const { uploadId, progress } = run;
  progress.sent(end);
  const sentEnd = Math.max(at.sentEnd, end);
  const next = answer.receivedBytes;
  if (next > sentEnd) {
    throw claimBeyond(putChunkRoute.name, "receivedBytes", next, sentEnd, answer.correlationId);
  }
  traceChunk(run, sending, "acknowledged");
  const { attempts, streamed } = at;
  run.emit("chunk", { uploadId, start, end, attempts, streamed, receivedBytes: next });
  const failures = next > start ? 0 : at.failures + 1;
  if (failures > run.policy.limit) {
    throw unexpectedResponse({
      operation: putChunkRoute.name,
      field: "receivedBytes",
      problem: `stayed at byte ${next} after the chunk at byte ${start} was accepted ${failures} times`,
      correlationId: answer.correlationId,
    });
  }
  progress.acknowledged(next);
  run.source.release(next);
  return {
    ...at,
    start: next,
    streamedOnce: at.streamedOnce || streamed,
    sentEnd,
    acknowledged: next,
    status: answer.status,
    lastCorrelationId: answer.correlationId,
    attempts: 0,
    failures,
  };
}

/**
 * The PUT failed (or its answer could not be true): stop, use smaller chunks, follow the service to
 * the offset it expects, or wait and send the same range again, within the retry limit.
 */
async function failed(run: ChunkRun, at: Standing, raw: unknown, sending: ChunkAttempt): Promise<Standing> {
  const { uploadId, policy, signal, source } = run;
  const { start, end } = sending;
  if (signal.aborted) throw raw;
  // A stream that failed or proved shorter than declared while its bytes were being sent.
  if (source.failure !== undefined) throw source.failure;
  const error = raw as PromoReviewError;
  // A runtime that refuses stream bodies (a browser on HTTP/1.1) fails the very first one as a
  // network error: send whole chunks from now on (this upload only ever loses fine-grained progress
  // by it). Counted as an ordinary failed attempt below.
  const streamed = at.streamed && (at.streamedOnce || !(error instanceof NetworkError));
  const failure = classifyChunkFailure(error);
  if (failure.action === "fail") throw error;
  if (failure.action === "shrink") {
    if (failure.maxChunkSize >= end - start) throw error;
    traceChunk(run, sending, "shrunk", error);
    const record = { uploadId, maxChunkSize: failure.maxChunkSize, fileSize: run.size };
    await run.store.set(run.fingerprint, record);
    return { ...at, streamed, chunkSize: failure.maxChunkSize };
  }
  const failures = at.failures + 1;
  if (failures > policy.limit) throw error;
  const retrying: Standing = { ...at, streamed, failures, retries: at.retries + 1 };
  if (failure.action === "resync") {
    const moved = await resynced(run, retrying, start, failure.offset, error);
    if (moved) {
      traceChunk(run, sending, "resynced", error);
      return moved;
    }
  }
  traceChunk(run, sending, "retried", error);
  const delayMs = retryDelay(error, failures, policy);
  run.emit("retry", { uploadId, start, end, attempt: failures, delayMs, error });
  await sleep(delayMs, signal);
  return retrying;
}

/**
 * After a 409: moves the loop to the offset the service expects (`offset`, else its status read) and
 * says so, or returns undefined when neither named one other than the chunk's start. Neither shape is
 * shown in the spec: the same range is then sent again after the backoff (a repeat of a range is
 * harmless).
 */
async function resynced(
  run: ChunkRun,
  at: Standing,
  start: number,
  offset: number | undefined,
  error: PromoReviewError,
): Promise<Standing | undefined> {
  const { uploadId, progress } = run;
  const expected = offset ?? (await getUploadState(run.meter.http, uploadId, run)).receivedBytes;
  if (expected !== undefined && expected > at.sentEnd) {
    const field = offset === undefined ? "receivedBytes" : "content_range_start";
    throw claimBeyond(putChunkRoute.name, field, expected, at.sentEnd, error.correlationId);
  }
  if (expected === undefined || expected === start) return undefined;
  // The service is elsewhere: ahead (the chunk landed, its answer was lost) or behind.
  const followed =
    expected > start
      ? { ...at, failures: 0 }
      : await movedBack(run, at, start, expected, error, error.correlationId ?? run.correlationId);
  const acknowledged = Math.max(at.acknowledged, expected);
  if (expected > at.acknowledged) progress.acknowledged(expected);
  run.source.release(Math.min(expected, start));
  return { ...followed, start: expected, acknowledged, attempts: 0 };
}

/**
 * Counts a backward move of the service's offset (`from` to `to`) and waits a growing, jittered
 * pause; past `maxResyncs` moves the upload ends with `UNEXPECTED_RESPONSE`.
 */
async function movedBack(
  run: ChunkRun,
  at: Standing,
  from: number,
  to: number,
  error: PromoReviewError | undefined,
  correlationId: string,
): Promise<Standing> {
  const { uploadId, maxResyncs, policy, signal } = run;
  const moved = (problem: string) =>
    unexpectedResponse({ operation: putChunkRoute.name, field: "receivedBytes", problem, correlationId });
  const moves = at.moves + 1;
  if (moves > maxResyncs) {
    throw moved(
      `moved back ${moves} times (last from byte ${from} to ${to}); the upload stops after ${maxResyncs}`,
    );
  }
  const delayMs = retryDelay(undefined, moves, { ...policy, random: () => 0.5 + policy.random() / 2 });
  const reason = error ?? moved(`moved back to ${to}`);
  run.emit("retry", { uploadId, start: from, end: from, attempt: moves, delayMs, error: reason });
  await sleep(delayMs, signal);
  return { ...at, moves, retries: at.retries + 1 };
}
