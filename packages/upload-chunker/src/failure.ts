/**
 * The error an upload ends with once it has an id: the same class, code, status and details as the
 * failure that stopped it, with the upload id and the byte offset the service had confirmed in the
 * message and in an `upload_state` detail, so the caller can resume exactly there; and the error for a
 * service that claims bytes it was never sent.
 */
import { type ErrorDetail, PromoReviewError, type PromoReviewErrorInit } from "@promo-review/errors";
import { unexpectedResponse } from "@promo-review/errors/internal";
import type { UploadStateDetail } from "./types.js";

/** Re-raises `error` as the same class, naming the upload and the offset reached. */
export function withUploadState(
  error: unknown,
  state: { uploadId: string; bytesAcknowledged: number; fileSize: number },
): PromoReviewError {
  if (!(error instanceof PromoReviewError)) {
    // A bug or a runtime failure outside the SDK's mapping: keep it visible, but typed.
    return new PromoReviewError({
      code: "UNEXPECTED_ERROR",
      message: `Upload ${state.uploadId} stopped at byte ${state.bytesAcknowledged} of ${state.fileSize}: ${String(
        (error as Error)?.message ?? error,
      )}`,
      details: [{ ...state, type: "upload_state" }],
      cause: error,
    });
  }
  if (uploadStateOf(error)) return error;
  const Class = error.constructor as new (init: PromoReviewErrorInit) => PromoReviewError;
  const head = error.message.split(` [${error.code}`)[0];
  return new Class({
    // Every field the error holds, its subclass's too (`mayHaveReachedServer`, `local`, `origin`,
    // `operation`, ...), for the constructor that reads them.
    ...(error as PromoReviewError & PromoReviewErrorInit),
    message: `Upload ${state.uploadId} stopped at byte ${state.bytesAcknowledged} of ${state.fileSize}: ${head}`,
    details: [...error.details, { ...state, type: "upload_state" } as ErrorDetail],
    cause: error,
  });
}

/** The upload id and offset an upload's error names, or `undefined` for an error from elsewhere. */
export function uploadStateOf(error: unknown): UploadStateDetail | undefined {
  if (!(error instanceof PromoReviewError)) return undefined;
  const detail = error.details.find((d) => d.type === "upload_state") as UploadStateDetail | undefined;
  return detail && typeof detail.uploadId === "string" ? detail : undefined;
}

/** The service claimed more bytes than were sent (or than the file holds): an `UNEXPECTED_RESPONSE`. */
export function claimBeyond(
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
