import type { Redactor } from "@promo-review/errors/internal";
import type { HttpResult } from "./client.js";
import type { RetryPolicy } from "./retry.js";

/**
 * What the SDK knows of the HTTP exchange behind a result, as AWS's `$metadata` or stripe's
 * `lastResponse` give: found on every result as the non-enumerable `$response`.
 */
export interface ResponseMetadata {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The answer's headers. */
  readonly headers: Headers;
  /** How many attempts it took (1 when the first succeeded; 0 when no request was made by this client). */
  readonly attempts: number;
  /** Milliseconds from the first attempt's start to the last byte of the answer, waits between retries included. */
  readonly durationMs: number;
  /** The correlation id of the exchange. */
  readonly correlationId: string;
  /** True when the result was served from a cache rather than by a request made for it. */
  readonly cached?: boolean | undefined;
}

/** A result with its {@link ResponseMetadata} under the non-enumerable, read-only `$response`. */
export type WithResponse<T> = T & { readonly $response: ResponseMetadata };

/**
 * The per-call controls every operation accepts beside its own options: they override, for this
 * call only, the client's deadline and retry policy.
 */
export interface CallControl {
  /** The deadline of each attempt of this call (see `HttpClientOptions.timeoutMs`). */
  timeoutMs?: number | undefined;
  /** Overrides of the client's retry policy for this call, or `false` for a single attempt. */
  retry?: Partial<RetryPolicy> | false | undefined;
}

/**
 * The metadata of one answered request. With `redact` (the client's `http.redact`), header values are
 * copies with the credentials removed: a service that echoes the key in a header must not put it
 * where a logger of `result.$response` would print it.
 */
export function responseMetadata(result: HttpResult<unknown>, redact?: Redactor): ResponseMetadata {
  const { status, attempts, durationMs, correlationId } = result;
  const headers = redact ? redactedHeaders(result.headers, redact) : result.headers;
  return { status, headers, attempts, durationMs, correlationId };
}

function redactedHeaders(headers: Headers, redact: Redactor): Headers {
  const copy = new Headers();
  headers.forEach((value, name) => {
    copy.append(name, redact(value));
  });
  return copy;
}

/**
 * The metadata of a result this client made no request for (one restored from a saved state or read
 * from a store another process filled): `status` 200, no headers, `attempts: 0`, `durationMs: 0`,
 * `cached: true`, and the correlation id of the exchange that produced it.
 */
export function notRequested(correlationId: string): ResponseMetadata {
  return { status: 200, headers: new Headers(), attempts: 0, durationMs: 0, correlationId, cached: true };
}

/**
 * Defines `$response` on `value` (and returns it, typed). Non-enumerable, so `JSON.stringify`, spreading
 * and `Object.keys` see the result exactly as before; read-only, so it cannot be mistaken for data.
 */
export function withResponse<T extends object>(value: T, metadata: ResponseMetadata): WithResponse<T> {
  // `defineProperty` leaves a property non-enumerable and read-only unless told otherwise.
  Object.defineProperty(value, "$response", { value: metadata, configurable: true });
  return value as WithResponse<T>;
}

/** The request options that carry a call's {@link CallControl}, with nothing set for what it leaves out. */
export function callControl(control: CallControl | undefined): CallControl {
  const picked: CallControl = {};
  if (control?.timeoutMs !== undefined) picked.timeoutMs = control.timeoutMs;
  if (control?.retry !== undefined) picked.retry = control.retry;
  return picked;
}
