import { AbortError, NetworkError, TimeoutError, type TransportError } from "./classes.js";
import type { ErrorContext } from "./from-response.js";

/** Causes that prove the request never left this machine or never reached a server. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "ERR_INVALID_URL",
]);

/** What the caller knows about a request that got no answer. */
export interface TransportContext extends ErrorContext {
  /** The request's own timeout fired. */
  timedOut?: boolean;
  /** The caller's signal fired. */
  aborted?: boolean;
  /** Whether any of the request was sent; false proves it did not reach the server. */
  sent?: boolean;
}

function causeCodes(cause: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

function nameOf(cause: unknown): string | undefined {
  const name = typeof cause === "object" && cause !== null ? (cause as { name?: unknown }).name : undefined;
  return typeof name === "string" ? name : undefined;
}

/**
 * What a timeout's cause says about what ran out (` (the response body stalled: ...)`), when it is a
 * `TimeoutError` with a message: a deadline, an idle gap, a low-speed limit.
 */
function why(cause: unknown): string {
  const message = nameOf(cause) === "TimeoutError" ? (cause as { message?: unknown }).message : undefined;
  return typeof message === "string" && message !== "" ? ` (${message})` : "";
}

/**
 * Maps a failure with no HTTP answer to `AbortError`, `TimeoutError` or `NetworkError`, each saying
 * whether the request may have reached the server, so callers can decide whether a retry could
 * duplicate work.
 */
export function errorFromTransport(cause: unknown, context: TransportContext = {}): TransportError {
  const request = context.method && context.url ? { method: context.method, url: context.url } : undefined;
  const target = request ? `${request.method} ${request.url}` : "The request";
  const name = nameOf(cause);
  const base = { cause, secrets: context.secrets, request };
  if (context.timedOut || (!context.aborted && name === "TimeoutError")) {
    return new TimeoutError({
      ...base,
      code: "TIMEOUT",
      message: `${target} timed out${why(cause)}; the service may still have processed it`,
      mayHaveReachedServer: context.sent ?? true,
    });
  }
  if (context.aborted || name === "AbortError") {
    return new AbortError({
      ...base,
      code: "ABORTED",
      message: `${target} was aborted by the caller`,
      mayHaveReachedServer: context.sent ?? true,
    });
  }
  const codes = causeCodes(cause);
  const notSent = context.sent === false || codes.some((code) => NOT_SENT_CODES.has(code));
  return new NetworkError({
    ...base,
    code: "NETWORK_ERROR",
    message: `${target} failed on the network${codes.length ? ` (${codes.join(" < ")})` : ""}${
      notSent ? "; it did not reach the service" : "; it may have reached the service"
    }`,
    mayHaveReachedServer: !notSent,
  });
}
