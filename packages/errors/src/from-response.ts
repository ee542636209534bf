import { readCapped } from "./capped-read.js";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  ParentNotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitError,
  ServerError,
  UploadNotReadyError,
  ValidationError,
} from "./classes.js";
import { notReadyUploadIdsOf, retryInfoMsOf } from "./details.js";
import { parseEnvelope } from "./envelope.js";
import { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";
import { excerpt } from "./redact.js";
import { combineRetryAfter, parseRetryAfter } from "./retry-after.js";

/** What the SDK knows about the request whose answer was an error. */
export interface ErrorContext {
  method?: string;
  url?: string;
  /** Values to redact (the API key, a session token) besides the patterns always redacted. */
  secrets?: Iterable<string>;
  /** The clock for HTTP-date `Retry-After` values. */
  now?: number;
}

/** An HTTP answer reduced to what error mapping needs. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The body as text (possibly cut short); may be empty. */
  body: string;
}

type ErrorClass = new (init: PromoReviewErrorInit) => PromoReviewError;

const BY_CODE: Record<string, ErrorClass> = {
  VALIDATION_ERROR: ValidationError,
  INVALID_REQUEST: ValidationError,
  UNAUTHORIZED: AuthenticationError,
  FORBIDDEN: PermissionError,
  NOT_FOUND: NotFoundError,
  CONFLICT: ConflictError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  RATE_LIMITED: RateLimitError,
  INTERNAL_ERROR: ServerError,
  UPSTREAM_ERROR: ServerError,
  SERVICE_ERROR: ServerError,
  PARENT_NOT_FOUND: ParentNotFoundError,
};

const BY_STATUS: Record<number, ErrorClass> = {
  400: ValidationError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  429: RateLimitError,
};

function classFor(code: string | undefined, status: number): ErrorClass {
  // Own keys only: a hostile code such as "constructor" or "valueOf" must not reach Object.prototype.
  const byCode = code !== undefined && Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined;
  if (byCode) return byCode;
  return BY_STATUS[status] ?? (status >= 500 ? ServerError : PromoReviewError);
}

/**
 * Maps an HTTP error answer to a typed error. The envelope gives code, message, details and
 * correlation id; any other body (a proxy's HTML 502, an empty or invalid body, a wrong content type)
 * gives code `UNEXPECTED_RESPONSE`, the class its status implies, and a short redacted excerpt. The
 * correlation id falls back to the `X-Correlation-ID` header. Never throws.
 */
export function errorFromHttp(answer: HttpAnswer, context: ErrorContext = {}): PromoReviewError {
  let json: unknown;
  try {
    json = answer.body === "" ? undefined : JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  const envelope = parseEnvelope(json);
  const details = envelope?.error.details ?? [];
  const retryAfterMs = combineRetryAfter(
    parseRetryAfter(answer.headers.get("retry-after"), context.now),
    retryInfoMsOf(details),
  );
  const request = context.method && context.url ? { method: context.method, url: context.url } : undefined;
  const init: PromoReviewErrorInit = {
    code: envelope?.error.code ?? "UNEXPECTED_RESPONSE",
    message:
      envelope?.error.message ||
      (envelope
        ? "The service refused the request"
        : `The service answered HTTP ${answer.status} without its error format`),
    status: answer.status,
    correlationId: envelope?.correlationId ?? answer.headers.get("x-correlation-id") ?? undefined,
    details,
    retryAfterMs,
    secrets: context.secrets,
    request,
    bodyExcerpt: envelope ? undefined : excerpt(answer.body, context.secrets),
  };
  const Class =
    answer.status === 409 && notReadyUploadIdsOf(details).length > 0
      ? UploadNotReadyError
      : classFor(envelope?.error.code, answer.status);
  return new Class(init);
}

/**
 * Reads at most `limit` bytes of a body as text, then cancels the rest (an error page can be huge).
 * The loop is `readCapped`'s, the one the HTTP client reads answers with.
 */
async function readTextCapped(response: Response, limit = 65_536): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  try {
    const { bytes, complete } = await readCapped(() => reader.read(), limit);
    if (!complete) await reader.cancel().catch(() => {});
    return new TextDecoder().decode(bytes);
  } finally {
    reader.releaseLock();
  }
}

/** {@link errorFromHttp} for a Fetch `Response`, reading (at most 64 KiB of) its body. Never throws. */
export async function errorFromResponse(
  response: Response,
  context: ErrorContext = {},
): Promise<PromoReviewError> {
  let body = "";
  try {
    body = await readTextCapped(response);
  } catch {
    // A body that breaks while being read still leaves status and headers to report.
  }
  return errorFromHttp({ status: response.status, headers: response.headers, body }, context);
}
