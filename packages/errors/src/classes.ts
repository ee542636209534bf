import { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";

/** 400 `VALIDATION_ERROR` or `INVALID_REQUEST` from the server, or a check made before any request (`local`). */
export class ValidationError extends PromoReviewError {
  static override readonly kind: string = "ValidationError";
  /** True when the SDK refused the input before sending anything: nothing reached the server. */
  declare readonly local: boolean;
  constructor(init: PromoReviewErrorInit & { local?: boolean }) {
    super(init);
    this.local = init.local ?? false;
  }
}

/** 401 `UNAUTHORIZED`: a missing, invalid, revoked or wrong-environment key. */
export class AuthenticationError extends PromoReviewError {
  static override readonly kind: string = "AuthenticationError";
}

/** 403 `FORBIDDEN`, including a key not fully configured for the organisation. */
export class PermissionError extends PromoReviewError {
  static override readonly kind: string = "PermissionError";
}

/** 404 `NOT_FOUND`: a promotion, version or upload that does not exist. */
export class NotFoundError extends PromoReviewError {
  static override readonly kind: string = "NotFoundError";
}

/** 409 `CONFLICT`. */
export class ConflictError extends PromoReviewError {
  static override readonly kind: string = "ConflictError";
}

/** 409 with `upload_not_ready` details: the upload is still processing; retry shortly (see `notReadyUploadIds`). */
export class UploadNotReadyError extends ConflictError {
  static override readonly kind: string = "UploadNotReadyError";
  static override readonly retryableByDefault: boolean = true;
}

/** `PAYLOAD_TOO_LARGE`: a declared size over the format's limit (see `constraintViolations`). */
export class PayloadTooLargeError extends PromoReviewError {
  static override readonly kind: string = "PayloadTooLargeError";
}

/** 429 `RATE_LIMITED`: wait `retryAfterMs`. */
export class RateLimitError extends PromoReviewError {
  static override readonly kind: string = "RateLimitError";
  static override readonly retryableByDefault: boolean = true;
}

/** A server-side failure: `INTERNAL_ERROR`, `UPSTREAM_ERROR`, `SERVICE_ERROR` or any 5xx. Transient. */
export class ServerError extends PromoReviewError {
  static override readonly kind: string = "ServerError";
  static override readonly retryableByDefault: boolean = true;
}

/** `PARENT_NOT_FOUND` on a comment reply: comment indexing is asynchronous, so a retry shortly succeeds. */
export class ParentNotFoundError extends PromoReviewError {
  static override readonly kind: string = "ParentNotFoundError";
  static override readonly retryableByDefault: boolean = true;
}

/** What a transport failure adds: whether the request may have been processed. */
export interface TransportErrorInit extends PromoReviewErrorInit {
  /**
   * False only when the request certainly did not reach the server (connection refused, name not
   * resolved, aborted before sending). A non-idempotent request is retried only when this is false.
   */
  mayHaveReachedServer: boolean;
}

/** No answer was received: the base of network failure, timeout and abort. */
export class TransportError extends PromoReviewError {
  static override readonly kind: string = "TransportError";
  /** See {@link TransportErrorInit.mayHaveReachedServer}. */
  declare readonly mayHaveReachedServer: boolean;
  constructor(init: TransportErrorInit) {
    super(init);
    this.mayHaveReachedServer = init.mayHaveReachedServer;
  }
}

/** `NETWORK_ERROR`: the connection failed or broke. */
export class NetworkError extends TransportError {
  static override readonly kind: string = "NetworkError";
  static override readonly retryableByDefault: boolean = true;
}

/** `TIMEOUT`: no answer within the configured time. */
export class TimeoutError extends TransportError {
  static override readonly kind: string = "TimeoutError";
  static override readonly retryableByDefault: boolean = true;
}

/** `ABORTED`: the caller's `AbortSignal` fired. Never retried. */
export class AbortError extends TransportError {
  static override readonly kind: string = "AbortError";
}
