/**
 * Typed errors of the Promotion Compliance Review SDK: the service's error envelope, its `details`
 * union as typed errors, `Retry-After`, and redaction of credentials. What the SDK's own packages
 * share beyond that (mapping answers and failures to these errors, checks) is in
 * `@promo-review/errors/internal`.
 * @packageDocumentation
 */
export {
  AbortError,
  AuthenticationError,
  ConflictError,
  NetworkError,
  NotFoundError,
  ParentNotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ServerError,
  TimeoutError,
  TransportError,
  type TransportErrorInit,
  UploadNotReadyError,
  ValidationError,
} from "./classes.js";
export {
  CLIENT_CODES,
  type ClientCode,
  type ErrorCode,
  isKnownCode,
  KNOWN_CODES,
  type KnownCode,
} from "./codes.js";
export {
  type ConstraintViolationDetail,
  constraintViolationsOf,
  type ErrorDetail,
  type FieldErrorDetail,
  fieldErrorsOf,
  notReadyUploadIdsOf,
  type RetryInfoDetail,
  retryInfoMsOf,
  type UnknownDetail,
  type UploadNotReadyDetail,
} from "./details.js";
export {
  ForeignOriginError,
  type ForeignOriginErrorInit,
  RedirectError,
} from "./origin.js";
export { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";
export { REDACTED, redactSecrets } from "./redact.js";
export { combineRetryAfter, parseRetryAfter } from "./retry-after.js";
export { UnexpectedResponseError } from "./unexpected-response.js";
export {
  WebhookVerificationError,
  type WebhookVerificationErrorInit,
  type WebhookVerificationReason,
} from "./webhook-verification-error.js";

import { PromoReviewError } from "./promo-review-error.js";

/** Whether `value` is an error from this package (any installed copy of it). */
export function isPromoReviewError(value: unknown): value is PromoReviewError {
  return value instanceof PromoReviewError;
}
