/**
 * What the SDK's own packages share and users do not call: mapping an HTTP answer or a transport
 * failure to an error, checking a success answer against the spec, refusing input before sending,
 * the bounds on server-given waits, and the redaction primitives. No semver promise: these names may
 * change in any release. Users import from `@promo-review/errors`.
 * @packageDocumentation
 */

export { type CappedRead, type NextPiece, readCapped } from "./capped-read.js";
export {
  type ErrorContext,
  errorFromHttp,
  errorFromResponse,
  type HttpAnswer,
} from "./from-response.js";
export { kindOf } from "./kind.js";
export { excerpt, type Redactor, type RedactorOptions, redactorFor, redactValue } from "./redact.js";
export { errorFromTransport, type TransportContext } from "./transport.js";
export {
  checkResponse,
  describeValue,
  expectObject,
  type FieldRule,
  isUuid,
  type ResponseContext,
  type ResponseShape,
  type UnexpectedResponseInit,
  unexpectedResponse,
} from "./unexpected-response.js";
export { type LocalIssue, localValidationError } from "./validation.js";
export { isOverWaitBound, MAX_SERVER_WAIT_MS, MAX_TIMER_MS } from "./wait-bound.js";
