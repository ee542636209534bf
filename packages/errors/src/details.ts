/** A bad field: `field` is a dotted path such as `variations.2.details`. */
export interface FieldErrorDetail {
  type: "field_error";
  field: string;
  message: string;
}

/** A limit exceeded, for example `max_file_size` with `limit` and `actual` in bytes. */
export interface ConstraintViolationDetail {
  type: "constraint_violation";
  constraint: string;
  limit: number;
  actual: number;
}

/** When to retry, in seconds (may be fractional). */
export interface RetryInfoDetail {
  type: "retry_info";
  retryAfterSeconds: number;
}

/** A referenced upload is still processing. */
export interface UploadNotReadyDetail {
  type: "upload_not_ready";
  uploadId: string;
}

/**
 * An entry the SDK does not know (a new `type`, or a known type with an unexpected shape). It is kept
 * as sent so that nothing the server said is lost.
 */
export interface UnknownDetail {
  type: string;
  [field: string]: unknown;
}

/** One entry of `error.details`, discriminated by `type`. */
export type ErrorDetail =
  | FieldErrorDetail
  | ConstraintViolationDetail
  | RetryInfoDetail
  | UploadNotReadyDetail
  | UnknownDetail;

type Fields = Record<string, unknown>;

const isString = (value: unknown): boolean => typeof value === "string";
// NaN is not a number here: a limit or a delay of NaN says nothing.
const isNumber = (value: unknown): boolean => typeof value === "number" && !Number.isNaN(value);

/** The fields each known `type` must carry, and what each must be. */
const KNOWN_SHAPES: Record<string, Record<string, (value: unknown) => boolean>> = {
  field_error: { field: isString, message: isString },
  constraint_violation: { constraint: isString, limit: isNumber, actual: isNumber },
  retry_info: { retryAfterSeconds: isNumber },
  upload_not_ready: { uploadId: isString },
};

/** Whether `raw` is a known entry with every field it needs; other fields are allowed. */
function isKnownDetail(raw: unknown): raw is ErrorDetail {
  if (typeof raw !== "object" || raw === null) return false;
  const type = (raw as Fields)["type"];
  const shape =
    typeof type === "string" && Object.hasOwn(KNOWN_SHAPES, type) ? KNOWN_SHAPES[type] : undefined;
  return shape !== undefined && Object.entries(shape).every(([field, test]) => test((raw as Fields)[field]));
}

/**
 * Reads one raw `details` entry. Known shapes are typed; anything else is kept (an object as it is, a
 * non-object wrapped as `{ type: "unknown", value }`), never dropped and never thrown on.
 */
export function parseDetail(raw: unknown): ErrorDetail {
  // A known shape is returned as sent, every key kept, those named like Object.prototype members
  // (`__proto__`, `constructor`) included: nothing the server said is dropped.
  if (isKnownDetail(raw)) return raw;
  if (typeof raw === "object" && raw !== null && !Array.isArray(raw)) {
    const type = (raw as { type?: unknown }).type;
    return { ...(raw as object), type: typeof type === "string" ? type : "unknown" } as UnknownDetail;
  }
  return { type: "unknown", value: raw };
}

/** The field errors among `details`. */
export function fieldErrorsOf(details: readonly ErrorDetail[]): FieldErrorDetail[] {
  return details.filter(
    (d): d is FieldErrorDetail => d.type === "field_error" && typeof d.field === "string",
  );
}

/** The constraint violations among `details`. */
export function constraintViolationsOf(details: readonly ErrorDetail[]): ConstraintViolationDetail[] {
  return details.filter(
    (d): d is ConstraintViolationDetail => d.type === "constraint_violation" && typeof d.limit === "number",
  );
}

/** The ids of uploads the server said are not ready yet. */
export function notReadyUploadIdsOf(details: readonly ErrorDetail[]): string[] {
  return details
    .filter((d): d is UploadNotReadyDetail => d.type === "upload_not_ready" && typeof d.uploadId === "string")
    .map((d) => d.uploadId);
}

/** The `retry_info` delay in milliseconds, when present. */
export function retryInfoMsOf(details: readonly ErrorDetail[]): number | undefined {
  const info = details.find(
    (d): d is RetryInfoDetail =>
      d.type === "retry_info" && typeof d.retryAfterSeconds === "number" && d.retryAfterSeconds >= 0,
  );
  return info ? Math.round(info.retryAfterSeconds * 1000) : undefined;
}
