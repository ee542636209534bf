/**
 * Reading an upload's status, and waiting for the file service to finish processing it.
 */
import { PromoReviewError, TimeoutError } from "@promo-review/errors";
import { DEFAULT_RETRY, type HttpClient, type RetryPolicy, retryDelay, sleep } from "@promo-review/http";

/** The upload statuses of the spec. */
export type UploadStatus = "pending" | "uploading" | "completed" | "failed";

/** The upload object (`GET /v1/uploads/{id}`). */
export interface UploadState {
  uploadId: string;
  status: UploadStatus;
  fileName: string;
  fileSize: number;
  createdAt: string;
  /**
   * The next byte the service expects (an extension of the spec the simulator documents). When the
   * service leaves it out it is `undefined`, and an upload resumes by sending from byte 0: the service
   * accepts a repeat of a stored range, and a 409 naming `content_range_start` moves the upload to the
   * offset the service expects.
   */
  receivedBytes: number | undefined;
  correlationId: string;
}

/** Reads an upload's status. A 404 is a `NotFoundError`. */
export async function getUploadState(
  http: HttpClient,
  uploadId: string,
  options: { signal?: AbortSignal; correlationId?: string } = {},
): Promise<UploadState> {
  const result = await http.request<Record<string, unknown>>(`/v1/uploads/${encodeURIComponent(uploadId)}`, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.correlationId ? { correlationId: options.correlationId } : {}),
  });
  const data = result.data ?? {};
  const received = data["receivedBytes"];
  return {
    uploadId: typeof data["uploadId"] === "string" ? data["uploadId"] : uploadId,
    status: data["status"] as UploadStatus,
    fileName: String(data["fileName"] ?? ""),
    fileSize: Number(data["fileSize"]),
    createdAt: String(data["createdAt"] ?? ""),
    receivedBytes: typeof received === "number" && Number.isSafeInteger(received) ? received : undefined,
    correlationId: result.correlationId,
  };
}

/** How {@link waitForUpload} polls. */
export interface WaitOptions {
  signal?: AbortSignal;
  /** Give up after this long (a `TimeoutError`). Default: wait as long as the service says `uploading`. */
  timeoutMs?: number;
  /** The first pause between polls; later pauses double up to `maxPollIntervalMs`. Default 250 ms. */
  pollIntervalMs?: number;
  /** The longest pause between polls. Default 5 s. */
  maxPollIntervalMs?: number;
  /** Random source for the jitter (tests pass a fixed one). */
  random?: () => number;
  correlationId?: string;
}

/**
 * Polls `GET /v1/uploads/{id}` (not rate-limited) until `completed`, with growing pauses. A `failed`
 * upload rejects with a `PromoReviewError` coded `UPLOAD_FAILED` naming the upload; running out of
 * `timeoutMs` rejects with a `TimeoutError`. Polls that fail transiently are retried by the HTTP client.
 */
export async function waitForUpload(
  http: HttpClient,
  uploadId: string,
  options: WaitOptions = {},
): Promise<UploadState> {
  const random = options.random ?? Math.random;
  // Equal jitter: pauses between half and all of the step, so polls spread out but never hammer.
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY,
    baseDelayMs: options.pollIntervalMs ?? 250,
    maxDelayMs: options.maxPollIntervalMs ?? 5_000,
    random: () => 0.5 + random() / 2,
  };
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  for (let poll = 1; ; poll++) {
    const state = await getUploadState(http, uploadId, options);
    if (state.status === "completed") return state;
    if (state.status === "failed") {
      throw new PromoReviewError({
        code: "UPLOAD_FAILED",
        message: `The file service could not process upload ${uploadId} (status failed); upload the file again`,
        correlationId: state.correlationId,
        details: [
          {
            type: "upload_state",
            uploadId,
            bytesAcknowledged: state.receivedBytes,
            fileSize: state.fileSize,
          },
        ],
      });
    }
    let pause = retryDelay(undefined, Math.min(poll, 20), policy);
    if (deadline !== undefined) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new TimeoutError({
          code: "TIMEOUT",
          message: `Upload ${uploadId} was still ${state.status} after ${options.timeoutMs} ms`,
          correlationId: state.correlationId,
          mayHaveReachedServer: true,
          details: [
            {
              type: "upload_state",
              uploadId,
              bytesAcknowledged: state.receivedBytes,
              fileSize: state.fileSize,
            },
          ],
        });
      }
      pause = Math.min(pause, left);
    }
    await sleep(pause, options.signal);
  }
}
