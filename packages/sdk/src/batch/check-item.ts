/**
 * The checks of one manifest line: the batch's own fields (`key`, `files`, `link`, `submit`,
 * `evaluate`), the metadata room the runner needs, and every rule `promotions.create` checks, run by
 * promotions-core's own validator on the request the runner will send (with stand-in upload ids and
 * the metadata the runner adds), so a line that passes here is not refused there.
 */
import { fieldErrorsOf, isPromoReviewError } from "@promo-review/errors";
import { MAX_METADATA_VALUE_LENGTH, validateCreatePromotion } from "@promo-review/promotions-core";
import {
  BATCH_FIELDS,
  BATCH_ID_METADATA,
  type BatchItem,
  ITEM_KEY_METADATA,
  MAX_ITEM_METADATA_KEYS,
} from "./items.js";
import type { ManifestProblem } from "./manifest-problem.js";

/** A uuid standing in for upload ids and the batch id, which exist only once the batch runs. */
const STAND_IN_ID = "00000000-0000-4000-8000-000000000000";

/** The line's problems, or none: then `value` is a {@link BatchItem}. */
export function checkItem(value: unknown, line: number): ManifestProblem[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [{ line, field: "(line)", message: "must be a JSON object" }];
  }
  const record = value as Record<string, unknown>;
  const key = typeof record["key"] === "string" ? record["key"] : undefined;
  const problems: Omit<ManifestProblem, "line" | "key">[] = [
    ...batchFieldProblems(record),
    ...metadataRoomProblems(record["metadata"]),
  ];
  problems.push(...creationProblems(record, problems));
  return problems.map((problem) => ({ line, key, ...problem }));
}

type Found = Omit<ManifestProblem, "line" | "key">;

function batchFieldProblems(record: Record<string, unknown>): Found[] {
  const problems: Found[] = [];
  const { key, files, link, submit, evaluate } = record;
  if (typeof key !== "string" || key.trim() === "") {
    problems.push({ field: "key", message: "is required: a non-empty string, unique in the manifest" });
  } else if (key.length > MAX_METADATA_VALUE_LENGTH) {
    // The key travels as a metadata value.
    problems.push({ field: "key", message: `must be at most ${MAX_METADATA_VALUE_LENGTH} characters` });
  }
  if (files !== undefined) {
    if (!Array.isArray(files) || files.length === 0) {
      problems.push({ field: "files", message: "must be a non-empty list of file paths" });
    } else {
      files.forEach((file, index) => {
        if (typeof file !== "string" || file === "") {
          problems.push({ field: `files.${index}`, message: "must be a non-empty file path" });
        }
      });
    }
  }
  if (link !== undefined && !isWebUrl(link)) {
    problems.push({ field: "link", message: "must be an http or https URL" });
  }
  if (files !== undefined && link !== undefined) {
    problems.push({ field: "link", message: "must be omitted when files are given (one source of content)" });
  }
  if (record["variations"] !== undefined) {
    for (const field of ["files", "link"] as const) {
      if (record[field] !== undefined) {
        problems.push({
          field,
          message: "must be omitted when variations are given (each variation names its upload)",
        });
      }
    }
  }
  if (files !== undefined && record["fileFormat"] === undefined) {
    problems.push({
      field: "fileFormat",
      message: "is required with files (the format of the uploaded files)",
    });
  }
  if (record["uploadIds"] !== undefined) {
    problems.push({ field: "uploadIds", message: "must be omitted: the runner sets it from files or link" });
  }
  for (const [field, flag] of [
    ["submit", submit],
    ["evaluate", evaluate],
  ] as const) {
    if (flag !== undefined && typeof flag !== "boolean")
      problems.push({ field, message: "must be true or false" });
  }
  return problems;
}

function isWebUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function metadataRoomProblems(metadata: unknown): Found[] {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return [];
  const keys = Object.keys(metadata);
  const problems: Found[] = [];
  if (keys.length > MAX_ITEM_METADATA_KEYS) {
    problems.push({
      field: "metadata",
      message: `must have at most ${MAX_ITEM_METADATA_KEYS} keys (the runner adds ${ITEM_KEY_METADATA} and ${BATCH_ID_METADATA})`,
    });
  }
  for (const reserved of [ITEM_KEY_METADATA, BATCH_ID_METADATA]) {
    if (keys.includes(reserved)) {
      problems.push({ field: `metadata.${reserved}`, message: "is reserved: the runner sets it" });
    }
  }
  return problems;
}

/**
 * promotions-core's problems with the creation request the runner would send. A field the batch
 * checks already reported (metadata's room, uploadIds) is not reported twice.
 */
function creationProblems(record: Record<string, unknown>, found: readonly Found[]): Found[] {
  const body: Record<string, unknown> = { ...record };
  for (const field of BATCH_FIELDS) delete body[field];
  const sources = Array.isArray(record["files"])
    ? record["files"].length
    : record["link"] !== undefined
      ? 1
      : 0;
  if (sources > 0 && body["uploadIds"] === undefined) {
    body["uploadIds"] = Array.from({ length: sources }, () => STAND_IN_ID);
    // A capture's format is the service's word; absent in the line, a file format stands in.
    if (record["link"] !== undefined && body["fileFormat"] === undefined) body["fileFormat"] = "image";
  }
  const metadata = body["metadata"];
  const roomReported = found.some((problem) => problem.field.startsWith("metadata"));
  if (!roomReported && (metadata === undefined || (typeof metadata === "object" && metadata !== null))) {
    body["metadata"] = {
      ...(metadata as object | undefined),
      // The key's own length is the batch check's to report.
      [ITEM_KEY_METADATA]:
        typeof record["key"] === "string" ? record["key"].slice(0, MAX_METADATA_VALUE_LENGTH) : "",
      [BATCH_ID_METADATA]: STAND_IN_ID,
    };
  }
  try {
    validateCreatePromotion(body as unknown as BatchItem);
    return [];
  } catch (error) {
    if (!isPromoReviewError(error) || error.code !== "VALIDATION_ERROR") throw error;
    const already = new Set(found.map((problem) => problem.field));
    return fieldErrorsOf(error.details)
      .map((detail) => ({ field: fieldOfLine(detail.field, record), message: detail.message }))
      .filter((problem) => !already.has(problem.field));
  }
}

/** The line's own name for a field of the request: its upload ids are its files or its link. */
function fieldOfLine(field: string, record: Record<string, unknown>): string {
  if (field !== "uploadIds" && !field.startsWith("uploadIds.")) return field;
  if (record["files"] !== undefined) return "files";
  if (record["link"] !== undefined) return "link";
  return field;
}
