/**
 * Reading an upload's status, and waiting for the file service to finish processing it.
 */
import { PromoReviewError, TimeoutError } from "@promo-review/errors";
import {
  checkResponse,
  isUuid,
  localValidationError,
  unexpectedResponse,
} from "@promo-review/errors/internal";
import type { ObservedOperation, Observer } from "@promo-review/errors/observe";
import { type HttpClient, poll, sendRoute } from "@promo-review/http";
import { uploadPath } from "./initiate.js";
import { statusRoute } from "./routes.js";
import type { UploadState, UploadStatus, WaitOptions } from "./types.js";
import { UPLOAD_STATUSES } from "./upload-statuses.js";

// Re-exported where it always was: the package index and put-chunk import it from here.
export { UPLOAD_STATUSES } from "./upload-statuses.js";

/**
 * How long an upload (and `uploader.waitForCompletion`) waits for `completed` unless told otherwise:
 * 10 minutes, generous for a 2 GB video's processing, yet an upload that stays `uploading` never keeps
 * a caller forever.
 */
export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;

/**
 * A byte offset the service reported where the spec shows none (`receivedBytes`): read only when it
 * is a whole number of bytes, 0 or more; anything else is `undefined`, as if it were absent.
 */
export function byteOffsetOf(value: unknown): number | undefined {
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/**
 * Checks an upload id from the caller before it goes into a path: not a UUID is a local
 * `ValidationError`, and nothing is sent.
 */
export function checkUploadId(uploadId: unknown, field = "uploadId"): string {
  if (isUuid(uploadId)) return uploadId;
  throw localValidationError(
    [{ field, message: "must be a UUID (the uploadId the file service gave)" }],
    `${field} is invalid`,
  );
}

/**
 * Reads an upload's status. A 404 is a `NotFoundError`. The id is checked as a UUID before any request
 * (a local `ValidationError`); the answer must hold what the spec states (`status` in its closed enum,
 * the same `uploadId`, and `fileName`, `fileSize`, `createdAt` of their types when present), else it
 * is `UNEXPECTED_RESPONSE`. Any 2xx is success (the status code is not shown).
 */
export async function getUploadState(
  http: HttpClient,
  uploadId: string,
  options: {
    signal?: AbortSignal | undefined;
    correlationId?: string | undefined;
    parent?: ObservedOperation | undefined;
  } = {},
): Promise<UploadState> {
  checkUploadId(uploadId);
  const result = await sendRoute(http, statusRoute, uploadPath(uploadId), {
    signal: options.signal,
    correlationId: options.correlationId,
    parent: options.parent,
  });
  const context = {
    operation: statusRoute.name,
    correlationId: result.correlationId,
    status: result.status,
    redact: http.redact,
  };
  const data = checkResponse(
    result.data,
    {
      status: { oneOf: UPLOAD_STATUSES },
      uploadId: { rule: "uuid", optional: true },
      fileName: { rule: "string", optional: true },
      fileSize: { rule: "nonNegativeInteger", optional: true },
      createdAt: { rule: "string", optional: true },
    },
    context,
  );
  if (data["uploadId"] !== undefined && data["uploadId"] !== uploadId) {
    throw unexpectedResponse({
      ...context,
      field: "uploadId",
      problem: `names another upload than ${uploadId}`,
    });
  }
  return {
    uploadId,
    status: data["status"] as UploadStatus,
    fileName: (data["fileName"] as string | undefined) ?? "",
    fileSize: data["fileSize"] as number | undefined,
    createdAt: (data["createdAt"] as string | undefined) ?? "",
    receivedBytes: byteOffsetOf(data["receivedBytes"]),
    correlationId: result.correlationId,
  };
}

/**
 * Polls `GET /v1/uploads/{id}` (not rate-limited) until `completed`, with growing pauses. A `failed`
 * upload rejects with a `PromoReviewError` coded `UPLOAD_FAILED` naming the upload; running out of
 * `timeoutMs` (default 10 minutes) rejects with a `TimeoutError`; a status outside the spec's enum is
 * `UNEXPECTED_RESPONSE` at once. Polls that fail transiently are retried by the HTTP client.
 */
export async function waitForUpload(
  http: HttpClient,
  uploadId: string,
  options: WaitOptions & {
    parent?: ObservedOperation | undefined;
    /** Told of each poll, as part of `parent`. */
    observer?: Observer | undefined;
  } = {},
): Promise<UploadState> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  let last: UploadState | undefined;
  return poll<UploadState>(
    async () => {
      last = await getUploadState(http, uploadId, options);
      options.observer?.uploadPolled?.({ parent: options.parent, status: last.status });
      if (last.status === "failed") throw uploadFailed(last);
      return last.status === "completed" ? { done: true, value: last } : { done: false };
    },
    {
      // Equal jitter: pauses between half and all of the step, so polls spread out but never hammer.
      backoff: {
        initialMs: options.pollIntervalMs ?? 250,
        maxMs: options.maxPollIntervalMs ?? 5_000,
        jitter: "equal",
        random: options.random,
      },
      timeoutMs,
      // A timeout is reported only after a status read that was not `completed`.
      checkAtDeadline: true,
      signal: options.signal,
      timeoutError: () => stillProcessing(last!, timeoutMs),
    },
  );
}

/** What the service knows of an upload, as an error's `details`. */
function uploadStateDetail(state: UploadState) {
  return [
    {
      type: "upload_state",
      uploadId: state.uploadId,
      bytesAcknowledged: state.receivedBytes,
      fileSize: state.fileSize,
    },
  ];
}

function uploadFailed(state: UploadState): PromoReviewError {
  return new PromoReviewError({
    code: "UPLOAD_FAILED",
    message: `The file service could not process upload ${state.uploadId} (status failed); upload the file again`,
    correlationId: state.correlationId,
    details: uploadStateDetail(state),
  });
}

function stillProcessing(state: UploadState, timeoutMs: number): TimeoutError {
  return new TimeoutError({
    code: "TIMEOUT",
    message: `Upload ${state.uploadId} was still ${state.status} after ${timeoutMs} ms`,
    correlationId: state.correlationId,
    mayHaveReachedServer: true,
    details: uploadStateDetail(state),
  });
}
