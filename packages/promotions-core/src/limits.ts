/**
 * The limits the service documents (spec, "Limits" and the creation-request table), in one place so
 * that the schemas, their messages and the tests use the same numbers.
 */

/** Longest `details`: top level, in each variation, and in a new version. */
export const MAX_DETAILS_LENGTH = 1500;
/** Fewest entries of `variations`. */
export const MIN_VARIATIONS = 2;
/** Most entries of `variations`. */
export const MAX_VARIATIONS = 20;
/** Most tags on one promotion (counted after trimming and removing duplicates). */
export const MAX_TAGS = 20;
/** Longest tag name (after trimming). */
export const MAX_TAG_LENGTH = 255;
/** Most metadata keys. */
export const MAX_METADATA_KEYS = 20;
/** Longest metadata key. */
export const MAX_METADATA_KEY_LENGTH = 128;
/** Longest metadata value. */
export const MAX_METADATA_VALUE_LENGTH = 1024;
/** The characters a metadata key may hold: letters, digits, underscore, hyphen. */
export const METADATA_KEY_PATTERN: RegExp = /^[A-Za-z0-9_-]+$/;
/** Tag names reserved by the service: the prefix `Var-` and the name `TESTING`. */
export const RESERVED_TAG_PREFIX = "Var-";
/** See {@link RESERVED_TAG_PREFIX}. */
export const RESERVED_TAG_NAME = "TESTING";

/**
 * Every `fileFormat` the spec lists, and the type of the field: `text` takes `content`; every other
 * format takes `uploadIds`. The type is open, so a capture's format passes through as the service named
 * it; validation refuses a value outside the list unless it is turned off.
 */
export { FILE_FORMATS, type FileFormat, isListedFileFormat } from "./file-format.js";

/**
 * Values of the promotion-type field. The spec names the field only in words ("promotion type"), so
 * the SDK sends it as `promotionType` (see docs/gaps.md) and checks the value only under that name.
 */
export const PROMOTION_TYPES = ["single", "carousel", "variations"] as const;
/** A promotion-type value. */
export type PromotionType = (typeof PROMOTION_TYPES)[number];

/**
 * Review statuses (the promotion read view's `status`): a closed enum in the spec. The decision
 * endpoint has the same values but `expired`.
 */
export const REVIEW_STATUSES = [
  "approved",
  "rejected",
  "changes_requested",
  "conditionally_approved",
  "in_review",
  "pending",
  "expired",
  "none",
] as const;

// Marked pure: a bundle that reads no decision (one that only creates promotions) drops both lists.
/** A version's decision values: the review statuses without `expired` (closed in the spec). */
export const DECISION_VALUES = /* @__PURE__ */ REVIEW_STATUSES.filter(
  (status): status is Exclude<(typeof REVIEW_STATUSES)[number], "expired"> => status !== "expired",
);
