/**
 * The text-vs-file rule shared by promotion creation and new versions: `fileFormat` text takes
 * `content` and no `uploadIds`; every other format takes `uploadIds` (at least one) and no `content`.
 * A cross-field rule, so it is a raw check reporting at the path of the offending field.
 */

import { addIssueAt } from "@promo-review/http";
import type * as v from "valibot";
import { isListedFileFormat } from "../file-format.js";
import { FILE_FORMATS } from "../limits.js";

type AddIssue = Parameters<Parameters<typeof v.rawCheck>[0]>[0]["addIssue"];

/** Applies the text-vs-file rule to a request body (typed or not: every problem is reported). */
export function checkFormatAndContent(body: Record<string, unknown>, addIssue: AddIssue): void {
  const { fileFormat, content, uploadIds } = body;
  if (fileFormat === undefined) {
    addIssueAt(
      addIssue,
      body,
      ["fileFormat"],
      `is required (one of ${FILE_FORMATS.join(", ")}) unless variations are given`,
    );
    return;
  }
  // An unknown format is reported by the field's own schema; which rule applies is then unknown.
  if (!isListedFileFormat(fileFormat)) return;
  if (fileFormat === "text") {
    if (content === undefined) addIssueAt(addIssue, body, ["content"], "is required when fileFormat is text");
    if (uploadIds !== undefined) {
      addIssueAt(addIssue, body, ["uploadIds"], "must be omitted when fileFormat is text");
    }
    return;
  }
  if (content !== undefined) {
    addIssueAt(addIssue, body, ["content"], "must be omitted for file-based formats (use uploadIds)");
  }
  if (uploadIds === undefined) {
    addIssueAt(addIssue, body, ["uploadIds"], `is required when fileFormat is ${String(fileFormat)}`);
  } else if (Array.isArray(uploadIds) && uploadIds.length === 0) {
    addIssueAt(addIssue, body, ["uploadIds"], "must have at least 1 item", {
      name: "min_items",
      limit: 1,
      actual: 0,
      side: "min",
    });
  }
}

/** The fields a body with `variations` must not carry at the top level. */
export const EXCLUSIVE_WITH_VARIATIONS = ["uploadIds", "content", "fileFormat"] as const;

/** Reports each top-level field that `variations` excludes. */
export function checkExclusiveWithVariations(body: Record<string, unknown>, addIssue: AddIssue): void {
  for (const field of EXCLUSIVE_WITH_VARIATIONS) {
    if (body[field] !== undefined) {
      addIssueAt(addIssue, body, [field], "must be omitted when variations are given (set it per variation)");
    }
  }
}
