/**
 * Typed errors of the Promotion Compliance Review SDK: the service's error envelope, its `details`
 * union, `Retry-After`, transport failures, local validation, and redaction of credentials.
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
  isVocabularyCode,
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
  parseDetail,
  type RetryInfoDetail,
  retryInfoMsOf,
  type UnknownDetail,
  type UploadNotReadyDetail,
} from "./details.js";
export { type ErrorEnvelope, parseEnvelope } from "./envelope.js";
export {
  type ErrorContext,
  errorFromHttp,
  errorFromResponse,
  type HttpAnswer,
  readTextCapped,
} from "./from-response.js";
export {
  ForeignOriginError,
  type ForeignOriginErrorInit,
  RedirectError,
} from "./origin.js";
export { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";
export {
  excerpt,
  REDACTED,
  type Redactor,
  type RedactorOptions,
  redactorFor,
  redactSecrets,
  redactValue,
} from "./redact.js";
export { combineRetryAfter, parseRetryAfter } from "./retry-after.js";
export { errorFromTransport, type TransportContext } from "./transport.js";
export {
  breachOf,
  checkResponse,
  describeValue,
  expectObject,
  type FieldRule,
  isUuid,
  type ResponseContext,
  type ResponseShape,
  UnexpectedResponseError,
  type UnexpectedResponseInit,
  unexpectedResponse,
} from "./unexpected-response.js";
export { type LocalIssue, localValidationError } from "./validation.js";
export { isOverWaitBound, MAX_SERVER_WAIT_MS, MAX_TIMER_MS } from "./wait-bound.js";
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
