/**
 * One chunk PUT, and what a failed one means for the upload: wait and send the same range again,
 * ask the server where it stands, use a smaller chunk, or stop.
 */
import {
  ConflictError,
  NetworkError,
  PayloadTooLargeError,
  type PromoReviewError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from "@promo-review/errors";
import { isOverWaitBound } from "@promo-review/errors/internal";
import type { ObservedOperation } from "@promo-review/errors/observe";
import { type HttpClient, type RequestBody, sendRoute } from "@promo-review/http";
import { contentRange } from "./chunks.js";
import { putChunkRoute } from "./routes.js";
import type { ChunkPace, UploadStatus } from "./types.js";
import { byteOffsetOf, UPLOAD_STATUSES } from "./wait.js";

/** The file service's answer to a chunk. */
export interface ChunkAnswer {
  /** The next byte the service expects; from the answer, else the end of the chunk just sent. */
  receivedBytes: number;
  status: UploadStatus | undefined;
  correlationId: string;
}

/** The default slowest transfer a chunk is given time for: 64 KiB a second (a 512 kbit/s uplink). */
export const DEFAULT_CHUNK_MIN_BYTES_PER_SECOND = 64 * 1024;

/**
 * The deadline of one chunk PUT of `bytes` when none is fixed: the base plus the time its bytes take at
 * the slowest allowed speed. A 10-byte chunk gets 30 s, a 50 MiB one 30 s + 800 s at the defaults.
 */
export function chunkDeadlineMs(bytes: number, pace: ChunkPace): number {
  return pace.baseMs + Math.ceil((bytes * 1000) / pace.minBytesPerSecond);
}

/** Which chunk one PUT sends: the upload loop holds these under the same names. */
export interface ChunkTarget {
  /** The upload URL from initiation (`/v1/uploads/{id}`), relative to the file service. */
  readonly uploadUrl: string;
  readonly start: number;
  /** Exclusive end. */
  readonly end: number;
  /** The file's size. */
  readonly size: number;
  readonly signal?: AbortSignal | undefined;
  readonly correlationId?: string | undefined;
  /** What the deadline follows when the caller fixed none. */
  readonly chunkPace: ChunkPace;
  /** The upload's operation, the PUT's parent. */
  readonly parent?: ObservedOperation | undefined;
}

/**
 * Sends one chunk with its exact `Content-Range`, once: the retries are the caller's, because a
 * retried chunk needs a fresh body and may need the server's offset first. Without a fixed
 * `timeoutMs` the deadline follows the chunk's size (`chunkDeadlineMs`), and the answer's body is read
 * under the pace's low-speed limit: a small exchange that stalls fails in seconds, a large slow one
 * gets its time.
 */
export async function putChunk(
  http: HttpClient,
  chunk: ChunkTarget,
  body: RequestBody,
  timeoutMs: number | undefined,
): Promise<ChunkAnswer> {
  // The uploadUrl is the service's and may hold a token: the request is named by the route's template.
  const result = await sendRoute(http, putChunkRoute, chunk.uploadUrl, {
    body,
    headers: {
      "Content-Range": contentRange(chunk.start, chunk.end, chunk.size),
      "Content-Length": String(chunk.end - chunk.start),
      "Content-Type": "application/octet-stream",
    },
    // 308 "Resume Incomplete" (the resumable-upload convention, not in the spec: docs/gaps.md row 12)
    // is an answer too: the chunk was stored, more expected. A 308 with a Location stays a redirect,
    // the pipeline's to check.
    expect: [308],
    retry: false,
    minBytesPerSecond: chunk.chunkPace.minBytesPerSecond,
    timeoutMs: timeoutMs ?? chunkDeadlineMs(chunk.end - chunk.start, chunk.chunkPace),
    signal: chunk.signal,
    correlationId: chunk.correlationId,
    parent: chunk.parent,
  });
  // The chunk answer is not shown in the spec: whatever it holds is read only when it makes sense
  // (a byte offset, a status of the upload enum), and any 2xx without them means the chunk was stored.
  // A claim beyond the bytes sent is the caller's to refuse (it knows what was sent).
  // Optional chaining reads nothing from an empty answer, and a primitive (JSON `5`, `"ok"`) has no
  // such property: both mean "stored", as an answer without the fields.
  const data = result.data as { receivedBytes?: unknown; status?: unknown } | null | undefined;
  const status = UPLOAD_STATUSES.find((known) => known === data?.status);
  return {
    receivedBytes: byteOffsetOf(data?.receivedBytes) ?? chunk.end,
    status,
    correlationId: result.correlationId,
  };
}

/** What to do after a chunk PUT failed. */
export type ChunkFailure =
  /** Transient: wait (Retry-After or backoff) and send the same range again. */
  | { action: "retry" }
  /** The server expects another offset; `offset` when it said which, else ask with a status GET. */
  | { action: "resync"; offset: number | undefined }
  /** The chunk was larger than the server takes; continue with chunks of `maxChunkSize`. */
  | { action: "shrink"; maxChunkSize: number }
  /** Will not heal by repeating. */
  | { action: "fail" };

/**
 * Classifies a failed chunk PUT. Network errors, timeouts, 5xx and 429 are transient (a chunk PUT is
 * idempotent: the service accepts a repeat of a range it stored). A 409 means the service is at
 * another offset (its `content_range_start` limit says which). A 413 naming `max_chunk_size` gives the
 * real limit. Anything else (400, 401, 403, 404, an abort) is final.
 */
export function classifyChunkFailure(error: PromoReviewError): ChunkFailure {
  // A server-given wait over the one-hour bound is the caller's to decide on, never slept through.
  if (error.retryAfterMs !== undefined && isOverWaitBound(error.retryAfterMs)) return { action: "fail" };
  if (error instanceof NetworkError || error instanceof TimeoutError) return { action: "retry" };
  if (error instanceof RateLimitError || error instanceof ServerError) return { action: "retry" };
  if (error instanceof ConflictError) {
    const expected = error.constraintViolations.find((c) => c.constraint === "content_range_start");
    return { action: "resync", offset: expected?.limit };
  }
  if (error instanceof PayloadTooLargeError) {
    const limit = error.constraintViolations.find((c) => c.constraint === "max_chunk_size")?.limit;
    if (limit !== undefined && Number.isSafeInteger(limit) && limit > 0) {
      return { action: "shrink", maxChunkSize: limit };
    }
  }
  return { action: "fail" };
}
