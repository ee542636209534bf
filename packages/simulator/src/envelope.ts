/**
 * The one error envelope both services share, the status each code maps to, and the JSON writer
 * every response goes through (so that no response can forget `correlationId` or the CORS headers).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { corsHeaders } from "./cors.js";

/** The error codes of the spec (both services). */
export type ErrorCode =
  | "VALIDATION_ERROR"
  | "INVALID_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR"
  | "UPSTREAM_ERROR"
  | "SERVICE_ERROR"
  | "PARENT_NOT_FOUND";

/** One entry of `error.details`, discriminated by `type` as in the spec. */
export type ErrorDetail =
  | { type: "field_error"; field: string; message: string }
  | { type: "constraint_violation"; constraint: string; limit: number; actual: number }
  | { type: "retry_info"; retryAfterSeconds: number }
  | { type: "upload_not_ready"; uploadId: string };

/**
 * HTTP status of each code. The spec states 400/401/404/409/429/500; the rest are the simulator's
 * choice, recorded in docs/gaps.md.
 */
export const STATUS_OF_CODE: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_ERROR: 502,
  PARENT_NOT_FOUND: 404,
};

/** A failure a handler throws; the server turns it into the error envelope. */
export class ApiError extends Error {
  /** The envelope's `error.code`. */
  readonly code: ErrorCode;
  /** The HTTP status (from {@link STATUS_OF_CODE} unless overridden, e.g. by an injected fault). */
  readonly status: number;
  /** The envelope's `error.details`, omitted when empty. */
  readonly details: ErrorDetail[];
  /** Extra response headers (Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetail[] = [],
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = options.status ?? STATUS_OF_CODE[code];
    this.details = details;
    this.headers = options.headers ?? {};
  }
}

/** Builds a VALIDATION_ERROR for one bad field. */
export function fieldError(field: string, message: string): ApiError {
  return new ApiError("VALIDATION_ERROR", `${field}: ${message}`, [{ type: "field_error", field, message }]);
}

/** A successful handler result. `body` gets `correlationId` added when written. */
export interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** No body at all (a 204 or 308 of a variant profile); the correlation id goes in the header only. */
  empty?: boolean;
}

/** Serialises the error envelope for `error`. */
export function errorBody(error: ApiError, correlationId: string): Record<string, unknown> {
  const inner: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.details.length > 0) inner["details"] = error.details;
  return { error: inner, correlationId };
}

/**
 * Writes a JSON response with the correlation id in the body and in `X-Correlation-ID`, plus the CORS
 * headers, so browser callers can read both.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  correlationId: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify({ ...body, correlationId });
  res.writeHead(status, {
    ...corsHeaders(),
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(text)),
    "X-Correlation-ID": correlationId,
  });
  res.end(text);
}

/** Writes a reply, with its body unless it has none. */
export function sendReply(res: ServerResponse, reply: Reply, correlationId: string): void {
  if (!reply.empty) {
    sendJson(res, reply.status, reply.body, correlationId, reply.headers);
    return;
  }
  if (res.headersSent || res.destroyed) return;
  res.writeHead(reply.status, { ...corsHeaders(), ...reply.headers, "X-Correlation-ID": correlationId });
  res.end();
}

/** Writes `error` as the error envelope. */
export function sendError(res: ServerResponse, error: ApiError, correlationId: string): void {
  sendJson(res, error.status, errorBody(error, correlationId), correlationId, error.headers);
}

/**
 * The correlation id of a request: the caller's own `X-Correlation-ID` when sent (so traces join up
 * across systems), else a fresh one.
 */
export function correlationIdOf(req: IncomingMessage, fresh: () => string): string {
  const sent = req.headers["x-correlation-id"];
  const value = Array.isArray(sent) ? sent[0] : sent;
  return value && value.length > 0 && value.length <= 256 ? value : fresh();
}
