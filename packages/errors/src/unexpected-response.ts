/**
 * `UNEXPECTED_RESPONSE`: a success answer that breaks what the spec states (a required field missing,
 * a wrong type, an id that is not a uuid, a value outside a closed enum). The error names the field,
 * the operation and the correlation id, so the caller (and support) know exactly what was wrong. The
 * checks themselves are a few `typeof` tests, shared by every package that has no schema library.
 */
import type { FieldErrorDetail } from "./details.js";
import { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";
import type { Redactor } from "./redact.js";

/** Where an answer came from, for the error it may cause. */
export interface ResponseContext {
  /** The operation whose answer it was, e.g. `promotions.create` or `uploads.initiate`. */
  operation: string;
  /** The answer's correlation id (the body's, else the header's, else the one sent). */
  correlationId?: string | undefined;
  /** The answer's HTTP status. */
  status?: number | undefined;
  /** Values redacted from the message (the client's credentials). */
  secrets?: Iterable<string> | undefined;
  /** A redactor that holds them (an HTTP client's `redact`), used instead of `secrets` when given. */
  redact?: Redactor | undefined;
}

/** What an {@link UnexpectedResponseError} names. */
export interface UnexpectedResponseInit extends ResponseContext {
  /** The dotted path of the field (`promotionId`, `channels.2.id`), or `(body)` for the whole body. */
  field: string;
  /** What the spec states and the answer broke, e.g. `must be a UUID string`. */
  problem: string;
}

/**
 * A success answer that breaks the spec. Never retried: the same request would get the same answer.
 * `field_error` details name the field, as a server's validation error would.
 */
export class UnexpectedResponseError extends PromoReviewError {
  static override readonly kind: string = "UnexpectedResponseError";
  /** The operation whose answer it was. */
  declare readonly operation: string;
  /** The first field found wrong. */
  declare readonly field: string;
  constructor(init: PromoReviewErrorInit & { operation: string; field: string }) {
    super(init);
    this.operation = init.operation;
    this.field = init.field;
  }
}

/** Makes the `UNEXPECTED_RESPONSE` error for one broken field. */
export function unexpectedResponse(init: UnexpectedResponseInit): UnexpectedResponseError {
  return new UnexpectedResponseError({
    code: "UNEXPECTED_RESPONSE",
    message: `The service's answer to ${init.operation} breaks the spec: ${init.field} ${init.problem}`,
    operation: init.operation,
    field: init.field,
    details: [{ type: "field_error", field: init.field, message: init.problem } satisfies FieldErrorDetail],
    status: init.status,
    correlationId: init.correlationId,
    secrets: init.secrets,
    redact: init.redact,
  });
}

/** The canonical textual form of a UUID (any version), as the spec's "uuid" fields are. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID string. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/**
 * What one field must be: `uuid`, `string` (any string), `nonEmptyString`, `integer` (a safe
 * integer), `positiveInteger`, `nonNegativeInteger`, `boolean`, or one of a closed list of strings.
 */
export type FieldRule =
  | "uuid"
  | "string"
  | "nonEmptyString"
  | "integer"
  | "positiveInteger"
  | "nonNegativeInteger"
  | "boolean"
  | { oneOf: readonly string[] };

/** The fields of an answer: each required unless `optional` (then checked only when present). */
export type ResponseShape = Record<string, FieldRule | { rule: FieldRule; optional: true }>;

/** Why `value` breaks `rule`, or `undefined` when it keeps it. */
export function breachOf(value: unknown, rule: FieldRule): string | undefined {
  switch (rule) {
    case "uuid":
      return isUuid(value) ? undefined : "must be a UUID string";
    case "string":
      return typeof value === "string" ? undefined : "must be a string";
    case "nonEmptyString":
      return typeof value === "string" && value !== "" ? undefined : "must be a non-empty string";
    case "integer":
      return Number.isSafeInteger(value) ? undefined : "must be an integer";
    case "positiveInteger":
      return Number.isSafeInteger(value) && (value as number) > 0 ? undefined : "must be an integer > 0";
    case "nonNegativeInteger":
      return Number.isSafeInteger(value) && (value as number) >= 0 ? undefined : "must be an integer >= 0";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be a boolean";
    default:
      return typeof value === "string" && rule.oneOf.includes(value)
        ? undefined
        : `must be one of ${rule.oneOf.join(", ")}`;
  }
}

/**
 * Checks an answer's body against what the spec states for it and returns it as a plain object,
 * every field kept (unknown ones included). A body that is not a JSON object, or a field that breaks
 * its rule, throws {@link UnexpectedResponseError} naming the field. Fields the spec does not state
 * are never required: list only those it does.
 */
export function checkResponse(
  body: unknown,
  shape: ResponseShape,
  context: ResponseContext,
): Record<string, unknown> {
  const fail = (field: string, problem: string) => unexpectedResponse({ ...context, field, problem });
  const record = expectObject(body, context);
  for (const [field, entry] of Object.entries(shape)) {
    const optional = typeof entry === "object" && "optional" in entry;
    const rule = optional ? entry.rule : (entry as FieldRule);
    const value = record[field];
    if (value === undefined) {
      if (!optional) throw fail(field, "is required");
      continue;
    }
    const breach = breachOf(value, rule);
    if (breach !== undefined) throw fail(field, `${breach} (got ${describeValue(value)})`);
  }
  return record;
}

/**
 * Returns `body` when it is a JSON object (not null, not an array), else throws the
 * `UNEXPECTED_RESPONSE` naming `(body)`: an empty answer, `null` or `"hello"` is never a success.
 */
export function expectObject(body: unknown, context: ResponseContext): Record<string, unknown> {
  if (typeof body === "object" && body !== null && !Array.isArray(body))
    return body as Record<string, unknown>;
  throw unexpectedResponse({
    ...context,
    field: "(body)",
    problem: `must be a JSON object (got ${body === undefined ? "no body" : describeValue(body)})`,
  });
}

/** A short, safe description of a value for a message: its type, and short strings and numbers. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.length <= 40 ? JSON.stringify(value) : "a long string";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `a value of type ${typeof value}`;
}
