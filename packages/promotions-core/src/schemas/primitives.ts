/**
 * The field schemas every request shares: uuids, uuid lists, non-empty strings, dates, formats and
 * `details`. Messages read like the service's own field errors, so a local refusal and a server one
 * look alike to the caller.
 */
import * as v from "valibot";
import { FILE_FORMATS, MAX_DETAILS_LENGTH } from "../limits.js";
import { isDateOrDateTime, isIsoDateTime } from "./dates.js";

/** A free-text string; also the first step of every string field with further rules (one schema, built once). */
export const stringSchema = v.string("must be a string");

/** A record id: a canonical UUID string. */
export const uuidSchema = v.pipe(v.string("must be a UUID string"), v.uuid("must be a UUID"));

/** An array of uuids (may be empty). */
export const uuidListSchema = v.array(uuidSchema, "must be an array of UUIDs");

/** An array of uuids with at least one item (`productIds`, `channelIds`). */
export const nonEmptyUuidListSchema = v.pipe(
  v.array(uuidSchema, "is required: an array of at least 1 UUID"),
  v.minLength(1, "must have at least 1 item"),
);

/** A string of at least one character (`promotionName`, `content`). */
export const nonEmptyStringSchema = v.pipe(
  v.string("is required and must be a string"),
  v.minLength(1, "must not be empty"),
);

/** A boolean flag. */
export const booleanSchema = v.boolean("must be a boolean");

/** `details`: free text of at most 1500 characters. */
export const detailsSchema = v.pipe(
  stringSchema,
  v.maxLength(MAX_DETAILS_LENGTH, `must be at most ${MAX_DETAILS_LENGTH} characters`),
);

/** `fileFormat`. */
export const fileFormatSchema = v.picklist(FILE_FORMATS, `must be one of ${FILE_FORMATS.join(", ")}`);

/** `deadline`: a calendar date or an ISO 8601 date-time. */
export const deadlineSchema = v.pipe(
  stringSchema,
  v.check(
    isDateOrDateTime,
    "must be a date YYYY-MM-DD or an ISO 8601 date-time with an offset (e.g. 2025-01-31T12:00:00Z)",
  ),
);

/** `nextReviewDate`: an ISO 8601 date-time. */
export const dateTimeSchema = v.pipe(
  stringSchema,
  v.check(isIsoDateTime, "must be an ISO 8601 date-time with an offset (e.g. 2025-01-31T12:00:00Z)"),
);

/** Whether `value` is a plain JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A plain JSON object. `v.looseObject` alone accepts arrays (they are objects), so request bodies and
 * `metadata` are checked with this first.
 */
export function plainObjectSchema(message: string) {
  return v.custom<Record<string, unknown>>(isPlainObject, message);
}
