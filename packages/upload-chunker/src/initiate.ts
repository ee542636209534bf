/**
 * Upload initiation: `POST /v1/uploads` with the file's name, size and content type.
 */
import type { HttpClient } from "@promo-review/http";

/** The file service's answer to an initiation. */
export interface Initiated {
  uploadId: string;
  /** Where the chunks go, relative to the file service (`/v1/uploads/{id}`). */
  uploadUrl: string;
  /** The largest chunk a PUT may carry, as the service said. */
  maxChunkSize: number;
  correlationId: string;
}

/**
 * The chunk size assumed when the service does not say: the spec's documented default of 50 MB. A
 * smaller real limit is learned from the service's 413 `max_chunk_size` answer and used from then on.
 */
export const DOCUMENTED_MAX_CHUNK_SIZE = 52_428_800;

/**
 * Initiates an upload. The HTTP client retries it only where that cannot create a second upload
 * (a 429, or a request that never reached the service). A size over the service's limit is its
 * `PayloadTooLargeError`, even when the local format table let it through.
 */
export async function initiateUpload(
  http: HttpClient,
  body: { fileName: string; fileSize: number; contentType: string },
  options: { signal?: AbortSignal; correlationId?: string } = {},
): Promise<Initiated> {
  const result = await http.request<{ uploadId: string; uploadUrl?: unknown; maxChunkSize?: unknown }>(
    "/v1/uploads",
    {
      method: "POST",
      json: body,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.correlationId ? { correlationId: options.correlationId } : {}),
    },
  );
  const { uploadId, uploadUrl, maxChunkSize } = result.data;
  return {
    uploadId,
    uploadUrl: typeof uploadUrl === "string" && uploadUrl !== "" ? uploadUrl : uploadPath(uploadId),
    maxChunkSize:
      typeof maxChunkSize === "number" && Number.isSafeInteger(maxChunkSize) && maxChunkSize > 0
        ? maxChunkSize
        : DOCUMENTED_MAX_CHUNK_SIZE,
    correlationId: result.correlationId,
  };
}

/** The path of an upload on the file service (its status, and its chunks' target). */
export function uploadPath(uploadId: string): string {
  return `/v1/uploads/${encodeURIComponent(uploadId)}`;
}
