import { hasKind, KINDS, kindsOf } from "./brand.js";
import type { ErrorCode } from "./codes.js";
import { isVocabularyCode } from "./codes.js";
import {
  type ConstraintViolationDetail,
  constraintViolationsOf,
  type ErrorDetail,
  type FieldErrorDetail,
  fieldErrorsOf,
  notReadyUploadIdsOf,
} from "./details.js";
import { type Redactor, redactorFor, redactValue } from "./redact.js";

/** Everything an error is made of. Only `code` and `message` are required. */
export interface PromoReviewErrorInit {
  code: ErrorCode;
  /** What happened, in words; the code, fields, limits and correlation id are appended. */
  message: string;
  /** HTTP status, when a server answered. */
  status?: number;
  correlationId?: string;
  details?: ErrorDetail[];
  retryAfterMs?: number;
  /** Overrides the class default. */
  retryable?: boolean;
  /** The underlying failure; it is copied without anything that could hold a credential. */
  cause?: unknown;
  /**
   * Values to redact (the API key, a session token, a webhook secret), of any length, from every string
   * the error carries: message, code, details, correlation id, request URL, excerpt and cause chain.
   * They are not kept on the error.
   */
  secrets?: Iterable<string>;
  /**
   * A redactor made elsewhere that already holds the secrets in its closure (an HTTP client's
   * `redact`), for an error made outside that client; used instead of `secrets` when given.
   */
  redact?: Redactor;
  /** A short excerpt of a body that was not the error envelope. */
  bodyExcerpt?: string;
  /** The request that failed (method and URL, never its headers). */
  request?: { method: string; url: string };
}

/**
 * The base of every error the SDK throws. Fields are what a caller acts on: `code` to branch,
 * `status`, `details` (typed, see the accessors), `retryAfterMs` and `retryable` to decide on a retry,
 * and `correlationId` to quote to support. Messages and causes never contain credentials.
 */
export class PromoReviewError extends Error {
  /** The class's kind, used by `instanceof` across package copies. */
  static readonly kind: string = "PromoReviewError";
  /** Whether errors of this class are transient by default. */
  static readonly retryableByDefault: boolean = false;

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` asked about, a subclass included.
    return hasKind(value, (this as unknown as { kind: string }).kind);
  }

  declare readonly [KINDS]: string[];
  /** The service's code (kept as sent when unknown) or a client code such as `NETWORK_ERROR`. */
  declare readonly code: ErrorCode;
  /** HTTP status, when a server answered. */
  declare readonly status: number | undefined;
  /** The id to quote to support; from the body, else the `X-Correlation-ID` response header. */
  declare readonly correlationId: string | undefined;
  /** `error.details` as sent, typed by `type`; unknown entries are kept. */
  declare readonly details: readonly ErrorDetail[];
  /** How long to wait before retrying, from `Retry-After` and `retry_info` (see `combineRetryAfter`). */
  declare readonly retryAfterMs: number | undefined;
  /** Whether the failure is transient, so that the same request may succeed later. */
  declare readonly retryable: boolean;
  /** A short, redacted excerpt of the body when the response was not the error envelope. */
  declare readonly bodyExcerpt: string | undefined;
  /** The request that failed: method and URL (redacted), never headers. */
  declare readonly request: { method: string; url: string } | undefined;

  constructor(init: PromoReviewErrorInit) {
    // The secrets live only in this closure: nothing on the instance holds them.
    const redact = init.redact ?? redactorFor(init.secrets);
    const details = redactValue(init.details ?? [], redact);
    // A documented code stays as it is, so branching on `code` works whatever the secrets; any other
    // code came from the service and is text like the rest.
    const code = isVocabularyCode(init.code) ? init.code : redact(init.code);
    const correlationId = init.correlationId === undefined ? undefined : redact(init.correlationId);
    const bodyExcerpt = init.bodyExcerpt === undefined ? undefined : redact(init.bodyExcerpt);
    const request = init.request && { method: init.request.method, url: redact(init.request.url) };
    // Each part is redacted, then the whole message again: a secret may straddle two parts. The
    // cause is Error's own option, so it is set as the platform sets it (not enumerable).
    super(
      redact(describe({ ...init, message: redact(init.message), code, correlationId, bodyExcerpt }, details)),
      init.cause === undefined ? undefined : { cause: safeCause(init.cause, redact) },
    );
    Object.defineProperty(this, KINDS, { value: kindsOf(new.target) });
    Object.assign(this, {
      name: (new.target as { kind: string }).kind,
      code,
      status: init.status,
      correlationId,
      details,
      retryAfterMs: init.retryAfterMs,
      retryable: init.retryable ?? (new.target as typeof PromoReviewError).retryableByDefault,
      bodyExcerpt,
      request,
    });
  }

  /** The `field_error` entries: which field was wrong and why. */
  get fieldErrors(): FieldErrorDetail[] {
    return fieldErrorsOf(this.details);
  }

  /** The `constraint_violation` entries: which limit, and by how much. */
  get constraintViolations(): ConstraintViolationDetail[] {
    return constraintViolationsOf(this.details);
  }

  /** The upload ids named by `upload_not_ready` entries. */
  get notReadyUploadIds(): string[] {
    return notReadyUploadIdsOf(this.details);
  }

  /**
   * A plain, credential-free object for logs and `JSON.stringify`: the name, the message and every
   * field that has a value, a subclass's own fields included (`reason`, `origin`, `local`, …). Each
   * was redacted when the error was made, which is also why Node's `util.inspect` may print them.
   */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [k, v] of Object.entries(this)) if (v !== undefined) out[k] = v;
    return out;
  }
}

function describe(init: PromoReviewErrorInit, details: readonly ErrorDetail[]): string {
  const parts = [`${init.message} [${init.code}${init.status ? `, HTTP ${init.status}` : ""}]`];
  for (const f of fieldErrorsOf(details)) parts.push(`${f.field}: ${f.message}`);
  for (const c of constraintViolationsOf(details))
    parts.push(`${c.constraint}: limit ${c.limit}, actual ${c.actual}`);
  const notReady = notReadyUploadIdsOf(details);
  if (notReady.length > 0) parts.push(`uploads not ready: ${notReady.join(", ")}`);
  if (init.retryAfterMs !== undefined) parts.push(`retry after ${(init.retryAfterMs / 1000).toFixed(1)} s`);
  if (init.bodyExcerpt) parts.push(`body: ${init.bodyExcerpt}`);
  if (init.correlationId) parts.push(`correlation id ${init.correlationId} (quote it to support)`);
  return parts.join("; ");
}

// Causes are followed this deep; a deeper one is left out (a chain is never that long in practice).
const MAX_CAUSE_DEPTH = 4;

/**
 * Copies a cause keeping only its name, redacted message, `code`, and its own cause. An error of this
 * package keeps its class and fields, each string redacted again (it may have been made with other
 * secrets, or none).
 */
function safeCause(cause: unknown, redact: Redactor, depth = 0): unknown {
  if (typeof cause !== "object" || cause === null) {
    return typeof cause === "string" ? redact(cause) : cause;
  }
  if (cause instanceof PromoReviewError) return redactedError(cause, redact, depth);
  const source = cause as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
  const copy = new Error(
    redact(String(source.message ?? "")),
    depth < MAX_CAUSE_DEPTH && source.cause !== undefined
      ? { cause: safeCause(source.cause, redact, depth + 1) }
      : undefined,
  ) as Error & { code?: unknown };
  copy.name = typeof source.name === "string" ? redact(source.name) : "Error";
  if (typeof source.code === "string") copy.code = redact(source.code);
  else if (typeof source.code === "number") copy.code = source.code;
  return copy;
}

/** A copy of one of this package's errors, same class, every own field redacted with `redact`. */
function redactedError(error: PromoReviewError, redact: Redactor, depth: number): PromoReviewError {
  const copy = Object.create(Object.getPrototypeOf(error)) as PromoReviewError;
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (!descriptor || !("value" in descriptor)) continue;
    let value: unknown = descriptor.value;
    if (key === "cause") {
      if (depth >= MAX_CAUSE_DEPTH) continue;
      value = safeCause(value, redact, depth + 1);
    } else if (typeof key === "string") {
      value = redactValue(value, redact);
    }
    Object.defineProperty(copy, key, { ...descriptor, value });
  }
  return copy;
}
