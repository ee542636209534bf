/**
 * Errors that say what to do. A refused capture of a private file, or of a design frame over the size
 * limit, is rewritten with a message naming the cause and the remedy; status, code, details and the
 * correlation id stay as the service sent them.
 */
import {
  PermissionError,
  PromoReviewError,
  type PromoReviewErrorInit,
  ValidationError,
} from "@promo-review/errors";

function rebuilt(error: PromoReviewError, message: string): PromoReviewError {
  const Kind = error.constructor as new (init: PromoReviewErrorInit) => PromoReviewError;
  return new Kind({
    code: error.code,
    message,
    status: error.status,
    correlationId: error.correlationId,
    details: [...error.details],
    retryAfterMs: error.retryAfterMs,
    request: error.request,
    cause: error,
  });
}

/** Rewrites the errors of a capture or an import whose cause the service names; others pass unchanged. */
export function explainCaptureError(error: unknown, url: string): unknown {
  if (!(error instanceof PromoReviewError)) return error;
  if (error instanceof PermissionError) {
    return rebuilt(
      error,
      `The linked file is private or not shared, so the service cannot read it (${url}). ` +
        'Share it with "anyone with the link" and capture it again',
    );
  }
  const tooLarge = error.constraintViolations.find((c) => c.constraint === "max_frame_pixels");
  if (error instanceof ValidationError && tooLarge) {
    return rebuilt(
      error,
      `The design frame is ${tooLarge.actual} pixels; frames over about 6 megapixels (${tooLarge.limit}) ` +
        "cannot be imported. Choose a smaller frame (see discoverFrames) or export it smaller",
    );
  }
  return error;
}
