import * as v from "valibot";

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

// Built on first use, not at import: a top-level valibot call is kept by bundlers even when unused,
// so every importer of the error classes (a webhook receiver, say) would ship valibot for nothing.
let knownDetailSchema: ReturnType<typeof makeKnownDetailSchema> | undefined;

function makeKnownDetailSchema() {
  return v.variant("type", [
    v.looseObject({ type: v.literal("field_error"), field: v.string(), message: v.string() }),
    v.looseObject({
      type: v.literal("constraint_violation"),
      constraint: v.string(),
      limit: v.number(),
      actual: v.number(),
    }),
    v.looseObject({ type: v.literal("retry_info"), retryAfterSeconds: v.number() }),
    v.looseObject({ type: v.literal("upload_not_ready"), uploadId: v.string() }),
  ]);
}

/**
 * Reads one raw `details` entry. Known shapes are typed; anything else is kept (an object as it is, a
 * non-object wrapped as `{ type: "unknown", value }`), never dropped and never thrown on.
 */
export function parseDetail(raw: unknown): ErrorDetail {
  // A known shape is returned as sent, not as valibot's output, which leaves out keys named like
  // Object.prototype members (`__proto__`, `constructor`): nothing the server said is dropped.
  knownDetailSchema ??= makeKnownDetailSchema();
  if (v.is(knownDetailSchema, raw)) return raw as ErrorDetail;
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
