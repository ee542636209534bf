/**
 * The validation rules of promotion creation and version creation, straight from the spec's tables
 * and limits. Each problem is reported with a dotted field path (`variations.2.details`, `tags.3`,
 * `metadata.<key>`) and, for limits, a constraint_violation with the numbers.
 */
import { FILE_FORMATS, type FileFormat } from "./formats.js";
import { isObject, type Problems } from "./problems.js";
import { isUuid } from "./random.js";
import type { ReferenceData } from "./reference.js";

// The spec's "Limits" table, copied here and not imported from the client packages: the simulator is written from the spec, not from them (ARCHITECTURE.md, "Rules behind the larger choices"), so a client that misreads the spec is caught, not copied.
/** Maximum length of `details` (promotion, each variation, new version). */
export const MAX_DETAILS = 1500;
/** Variation count bounds. */
export const MIN_VARIATIONS = 2;
/** Variation count bounds. */
export const MAX_VARIATIONS = 20;
/** Tag limits. */
export const MAX_TAGS = 20;
/** Tag limits. */
export const MAX_TAG_LENGTH = 255;
/** Metadata limits. */
export const MAX_METADATA_KEYS = 20;
/** Metadata limits. */
export const MAX_METADATA_KEY_LENGTH = 128;
/** Metadata limits. */
export const MAX_METADATA_VALUE_LENGTH = 1024;
/** Values of the promotion-type field (named `promotionType` by the simulator). */
export const PROMOTION_TYPES = ["single", "carousel", "variations"] as const;

/** A reference to an upload found in a request, with the field path that named it. */
export interface UploadRef {
  field: string;
  uploadId: string;
}

/** A creation or version request after validation. */
export interface ValidatedContent {
  uploadRefs: UploadRef[];
  isFinancialPromotion: boolean | undefined;
}

/** A creation request after validation. */
export interface ValidatedCreation extends ValidatedContent {
  tags: string[];
  metadata: Record<string, string>;
}

type Known = Set<string>;

/**
 * How the rules read the points the spec leaves open (the simulator's variant profile, see
 * profile.ts); every field defaults to the simulator's own reading.
 */
export interface RuleOptions {
  /** Name of the promotion-type field, or null when the service knows none (default `promotionType`). */
  typeField?: "promotionType" | "type" | null;
  /** Whether creation may omit `jurisdictionId` (default false). */
  jurisdictionOptional?: boolean;
  /** Whether reference ids are checked against the lists (default true). */
  checkReferenceIds?: boolean;
  /** Most `uploadIds` in one request (default none). */
  maxUploadIds?: number;
  /** Whether a new version may omit `fileFormat` when `uploadIds` or `content` says which (default false). */
  formatOptional?: boolean;
}

function knownIds(reference: ReferenceData, check = true) {
  // Unchecked ids: no set, so checkUuid and checkUuidList test uuid-ness only.
  const ids = (list: { id: string }[]) => (check ? new Set(list.map((x) => x.id.toLowerCase())) : undefined);
  return {
    products: ids(reference.products),
    channels: ids(reference.channels),
    jurisdictions: ids(reference.jurisdictions),
    targetMarkets: ids(reference.targetMarkets),
  };
}

function checkUuid(problems: Problems, value: unknown, field: string, known?: Known, what = "id"): boolean {
  if (!isUuid(value)) {
    problems.field(field, "must be a UUID");
    return false;
  }
  if (known && !known.has(value.toLowerCase())) {
    problems.field(field, `unknown ${what} ${value}`);
    return false;
  }
  return true;
}

function checkUuidList(
  problems: Problems,
  value: unknown,
  field: string,
  options: { required?: boolean; known?: Known; what?: string } = {},
): string[] {
  if (value === undefined) {
    if (options.required) problems.field(field, "is required (at least 1 item)");
    return [];
  }
  if (!Array.isArray(value)) {
    problems.field(field, "must be an array of UUIDs");
    return [];
  }
  if (options.required && value.length === 0) {
    problems.limit(field, "min_items", 1, 0, "must have at least 1 item");
  }
  return value.filter((item, i) => checkUuid(problems, item, `${field}.${i}`, options.known, options.what));
}

function checkString(problems: Problems, value: unknown, field: string, required = false): void {
  if (value === undefined) {
    if (required) problems.field(field, "is required");
    return;
  }
  if (typeof value !== "string") problems.field(field, "must be a string");
  else if (required && value.length === 0) problems.field(field, "must not be empty");
}

function checkBoolean(problems: Problems, body: Record<string, unknown>, field: string, prefix = ""): void {
  if (body[field] !== undefined && typeof body[field] !== "boolean") {
    problems.field(`${prefix}${field}`, "must be a boolean");
  }
}

function checkDetails(problems: Problems, value: unknown, field: string): void {
  if (value === undefined) return;
  if (typeof value !== "string") problems.field(field, "must be a string");
  else if (value.length > MAX_DETAILS) {
    problems.limit(
      field,
      "max_length",
      MAX_DETAILS,
      value.length,
      `must be at most ${MAX_DETAILS} characters`,
    );
  }
}

// The spec's date and date-time fields ("Promotion creation request": deadline, nextReviewDate), checked
// here and not imported from the client packages: the simulator is written from the spec, not from them (ARCHITECTURE.md, "Rules behind the larger choices"), so a client that misreads the spec is caught, not copied.
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for an ISO 8601 datetime with an offset (e.g. 2025-01-31T12:00:00Z). */
export function isIsoDateTime(value: unknown): boolean {
  return typeof value === "string" && ISO_DATETIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** True for a real calendar date YYYY-MM-DD. */
export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const match = CALENDAR_DATE.exec(value);
  if (!match) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.getUTCDate() === Number(match[3]);
}

/** Checks a deadline: calendar date or ISO datetime. */
export function checkDeadline(problems: Problems, value: unknown, field = "deadline"): void {
  if (value !== undefined && !isCalendarDate(value) && !isIsoDateTime(value)) {
    problems.field(field, "must be a date YYYY-MM-DD or an ISO 8601 datetime");
  }
}

/** Checks one tag; returns its trimmed name, or undefined after recording the problem. */
function checkTag(problems: Problems, raw: unknown, field: string): string | undefined {
  if (typeof raw !== "string") {
    problems.field(field, "must be a string");
    return undefined;
  }
  const name = raw.trim();
  if (name.length === 0) problems.field(field, "must not be empty");
  else if (name.length > MAX_TAG_LENGTH) {
    problems.limit(
      field,
      "max_length",
      MAX_TAG_LENGTH,
      name.length,
      `must be at most ${MAX_TAG_LENGTH} characters`,
    );
  } else if (name.startsWith("Var-") || name === "TESTING") {
    problems.field(field, `"${name}" is reserved (names beginning with Var- and TESTING)`);
  } else return name;
  return undefined;
}

/**
 * Applies the tag rules: at most 20, each trimmed and at most 255 characters, duplicates in one
 * request ignored, `Var-` prefix and `TESTING` reserved. Returns the tags to attach.
 */
export function checkTags(problems: Problems, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.field("tags", "must be an array of strings");
    return [];
  }
  if (value.length > MAX_TAGS) {
    problems.limit("tags", "max_items", MAX_TAGS, value.length, `must have at most ${MAX_TAGS} tags`);
  }
  const tags: string[] = [];
  value.forEach((raw, i) => {
    const name = checkTag(problems, raw, `tags.${i}`);
    if (name !== undefined && !tags.includes(name)) tags.push(name);
  });
  return tags;
}

const METADATA_KEY = /^[A-Za-z0-9_-]+$/;

/** Applies the metadata rules: at most 20 keys, key [A-Za-z0-9_-]{1,128}, string value up to 1024. */
export function checkMetadata(problems: Problems, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value)) {
    problems.field("metadata", "must be an object of string values");
    return {};
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS) {
    problems.limit(
      "metadata",
      "max_keys",
      MAX_METADATA_KEYS,
      entries.length,
      `must have at most ${MAX_METADATA_KEYS} keys`,
    );
  }
  const metadata: Record<string, string> = {};
  for (const [key, v] of entries) {
    const field = `metadata.${key}`;
    if (key.length > MAX_METADATA_KEY_LENGTH) {
      problems.limit(
        field,
        "max_key_length",
        MAX_METADATA_KEY_LENGTH,
        key.length,
        `key must be at most ${MAX_METADATA_KEY_LENGTH} characters`,
      );
    } else if (!METADATA_KEY.test(key)) {
      problems.field(field, "key may contain only letters, digits, underscore and hyphen");
    } else if (typeof v !== "string") {
      problems.field(field, "value must be a string");
    } else if (v.length > MAX_METADATA_VALUE_LENGTH) {
      problems.limit(
        field,
        "max_length",
        MAX_METADATA_VALUE_LENGTH,
        v.length,
        `value must be at most ${MAX_METADATA_VALUE_LENGTH} characters`,
      );
    } else {
      // Defined, not assigned: a key such as "__proto__" is valid metadata and must be kept as data.
      Object.defineProperty(metadata, key, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return metadata;
}

/**
 * The text-vs-file rule: text takes `content` and no `uploadIds`; every other format takes
 * `uploadIds` and no `content`.
 */
function checkFormatAndContent(
  problems: Problems,
  body: Record<string, unknown>,
  options: RuleOptions = {},
): UploadRef[] {
  const { content, uploadIds } = body;
  // A service that reads the format from the content: uploads mean a file, content means text.
  const fileFormat =
    body["fileFormat"] === undefined && options.formatOptional
      ? uploadIds !== undefined
        ? "document"
        : "text"
      : body["fileFormat"];
  if (!FILE_FORMATS.includes(fileFormat as FileFormat)) {
    problems.field("fileFormat", `is required and must be one of ${FILE_FORMATS.join(", ")}`);
    return [];
  }
  if (fileFormat === "text") {
    checkString(problems, content, "content", true);
    if (uploadIds !== undefined) problems.field("uploadIds", "must be omitted when fileFormat is text");
    return [];
  }
  if (content !== undefined) problems.field("content", "must be omitted for file-based formats");
  checkUuidList(problems, uploadIds, "uploadIds", { required: true });
  if (!Array.isArray(uploadIds)) return [];
  if (options.maxUploadIds !== undefined && uploadIds.length > options.maxUploadIds) {
    problems.limit(
      "uploadIds",
      "max_items",
      options.maxUploadIds,
      uploadIds.length,
      `must have at most ${options.maxUploadIds} entries`,
    );
  }
  return uploadIds.flatMap((uploadId, i) =>
    isUuid(uploadId) ? [{ field: `uploadIds.${i}`, uploadId }] : [],
  );
}

function checkTargeting(
  problems: Problems,
  body: Record<string, unknown>,
  prefix: string,
  known: ReturnType<typeof knownIds>,
): void {
  checkUuidList(problems, body["linkedClaimIds"], `${prefix}linkedClaimIds`);
  checkUuidList(problems, body["targetMarketIds"], `${prefix}targetMarketIds`, {
    known: known.targetMarkets,
    what: "target market",
  });
  checkBoolean(problems, body, "applyToAllTargetMarkets", prefix);
  checkString(problems, body["caption"], `${prefix}caption`);
  checkDetails(problems, body["details"], `${prefix}details`);
}

function checkVariation(
  problems: Problems,
  entry: unknown,
  i: number,
  known: ReturnType<typeof knownIds>,
): UploadRef[] {
  const prefix = `variations.${i}.`;
  if (!isObject(entry)) {
    problems.field(`variations.${i}`, "must be an object");
    return [];
  }
  checkUuidList(problems, entry["channelIds"], `${prefix}channelIds`, {
    known: known.channels,
    what: "channel",
  });
  if (entry["jurisdictionId"] !== undefined) {
    checkUuid(
      problems,
      entry["jurisdictionId"],
      `${prefix}jurisdictionId`,
      known.jurisdictions,
      "jurisdiction",
    );
  }
  checkTargeting(problems, entry, prefix, known);
  const hasUpload = entry["uploadId"] !== undefined;
  const hasContent = entry["content"] !== undefined;
  if (hasUpload === hasContent) {
    problems.field(`variations.${i}`, "must have exactly one of uploadId and content");
  }
  if (hasContent) checkString(problems, entry["content"], `${prefix}content`, true);
  if (hasUpload && checkUuid(problems, entry["uploadId"], `${prefix}uploadId`)) {
    return [{ field: `${prefix}uploadId`, uploadId: entry["uploadId"] as string }];
  }
  return [];
}

function checkVariations(
  problems: Problems,
  body: Record<string, unknown>,
  known: ReturnType<typeof knownIds>,
) {
  const variations = body["variations"];
  for (const field of ["uploadIds", "content", "fileFormat"]) {
    if (body[field] !== undefined) problems.field(field, "must be omitted when variations are given");
  }
  if (!Array.isArray(variations)) {
    problems.field("variations", "must be an array");
    return [];
  }
  if (variations.length < MIN_VARIATIONS) {
    problems.limit(
      "variations",
      "min_items",
      MIN_VARIATIONS,
      variations.length,
      `must have at least ${MIN_VARIATIONS} entries`,
    );
  } else if (variations.length > MAX_VARIATIONS) {
    problems.limit(
      "variations",
      "max_items",
      MAX_VARIATIONS,
      variations.length,
      `must have at most ${MAX_VARIATIONS} entries`,
    );
  }
  return variations.flatMap((entry, i) => checkVariation(problems, entry, i, known));
}

/**
 * Validates a creation request. Required (a simulator choice, the spec leaves it open):
 * promotionName, productIds (>= 1), channelIds (>= 1), jurisdictionId, and either variations or
 * fileFormat with its content/uploadIds. Unknown extra fields are ignored.
 */
export function validateCreation(
  body: Record<string, unknown>,
  reference: ReferenceData,
  problems: Problems,
  options: RuleOptions = {},
): ValidatedCreation {
  const known = knownIds(reference, options.checkReferenceIds ?? true);
  checkString(problems, body["promotionName"], "promotionName", true);
  checkUuidList(problems, body["productIds"], "productIds", {
    required: true,
    known: known.products,
    what: "product",
  });
  checkUuidList(problems, body["channelIds"], "channelIds", {
    required: true,
    known: known.channels,
    what: "channel",
  });
  if (body["jurisdictionId"] === undefined) {
    if (!options.jurisdictionOptional) problems.field("jurisdictionId", "is required");
  } else checkUuid(problems, body["jurisdictionId"], "jurisdictionId", known.jurisdictions, "jurisdiction");
  checkDeadline(problems, body["deadline"]);
  if (body["nextReviewDate"] !== undefined && !isIsoDateTime(body["nextReviewDate"])) {
    problems.field("nextReviewDate", "must be an ISO 8601 datetime");
  }
  for (const flag of ["paidPromotion", "isFinancialPromotion", "evergreen"])
    checkBoolean(problems, body, flag);
  const typeField = options.typeField === undefined ? "promotionType" : options.typeField;
  const type = typeField === null ? undefined : body[typeField];
  if (type !== undefined && !PROMOTION_TYPES.includes(type as (typeof PROMOTION_TYPES)[number])) {
    problems.field(typeField!, `must be one of ${PROMOTION_TYPES.join(", ")}`);
  }
  checkTargeting(problems, body, "", known);
  const uploadRefs =
    body["variations"] !== undefined
      ? checkVariations(problems, body, known)
      : checkFormatAndContent(problems, body, { ...options, formatOptional: false });
  return {
    uploadRefs,
    isFinancialPromotion: body["isFinancialPromotion"] as boolean | undefined,
    tags: checkTags(problems, body["tags"]),
    metadata: checkMetadata(problems, body["metadata"]),
  };
}

/**
 * Validates a new version: fileFormat with the same text-vs-file rule as creation, details up to
 * 1500, optional caption and isFinancialPromotion (inherited from the promotion when omitted).
 */
export function validateVersion(
  body: Record<string, unknown>,
  problems: Problems,
  options: RuleOptions = {},
): ValidatedContent {
  const uploadRefs = checkFormatAndContent(problems, body, options);
  checkDetails(problems, body["details"], "details");
  checkString(problems, body["caption"], "caption");
  checkBoolean(problems, body, "isFinancialPromotion");
  return { uploadRefs, isFinancialPromotion: body["isFinancialPromotion"] as boolean | undefined };
}
