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
import type { HttpClient, RequestBody } from "@promo-review/http";
import { contentRange } from "./chunks.js";
import type { UploadStatus } from "./wait.js";

/** The file service's answer to a chunk. */
export interface ChunkAnswer {
  /** The next byte the service expects; from the answer, else the end of the chunk just sent. */
  receivedBytes: number;
  status: UploadStatus | undefined;
  correlationId: string;
}

/** What one chunk PUT needs. */
export interface PutChunkRequest {
  /** The upload URL from initiation (`/v1/uploads/{id}`), relative to the file service. */
  uploadUrl: string;
  start: number;
  /** Exclusive end. */
  end: number;
  total: number;
  body: RequestBody;
  signal?: AbortSignal;
  correlationId?: string;
  timeoutMs?: number;
}

/**
 * Sends one chunk with its exact `Content-Range`, once: the retries are the caller's, because a
 * retried chunk needs a fresh body and may need the server's offset first.
 */
export async function putChunk(http: HttpClient, request: PutChunkRequest): Promise<ChunkAnswer> {
  const result = await http.request<{ receivedBytes?: unknown; status?: unknown }>(request.uploadUrl, {
    method: "PUT",
    body: request.body,
    headers: {
      "Content-Range": contentRange(request.start, request.end, request.total),
      "Content-Type": "application/octet-stream",
    },
    retry: false,
    ...(request.signal ? { signal: request.signal } : {}),
    ...(request.correlationId ? { correlationId: request.correlationId } : {}),
    ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
  });
  const received = result.data?.receivedBytes;
  return {
    receivedBytes: typeof received === "number" && Number.isSafeInteger(received) ? received : request.end,
    status: typeof result.data?.status === "string" ? (result.data.status as UploadStatus) : undefined,
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
