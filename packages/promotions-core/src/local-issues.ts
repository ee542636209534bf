/**
 * The one place valibot issues become the SDK's words: a dotted field path (`variations.2.details`,
 * `tags.3`, `(body)` for the whole value), the message, and the limit broken, named as the service
 * names its constraints. Request validation (validate.ts) and answer checks (check-answer.ts) both
 * read issues through it.
 */
import type { LocalIssue } from "@promo-review/errors/internal";
import * as v from "valibot";
import { decodeLimit } from "./schemas/raw-issue.js";

/** The dotted path of the value an issue is about; `(body)` when it is the whole value. */
export function issueField(issue: v.BaseIssue<unknown>): string {
  return v.getDotPath(issue) ?? "(body)";
}

/**
 * Whether `issue` is about a required key that is absent. valibot reports it as an issue of the
 * enclosing object, carrying that object's message ("the creation request must be a JSON object"),
 * with the key's name quoted as what was expected: the words to give instead are "is required".
 */
export function isMissingKey(issue: v.BaseIssue<unknown>): boolean {
  const key = issue.path?.at(-1)?.key;
  return issue.kind === "schema" && issue.received === "undefined" && issue.expected === `"${String(key)}"`;
}

/** The limit a valibot issue reports, named as the service names its constraints. */
function limitOf(issue: v.BaseIssue<unknown>): LocalIssue["constraint"] {
  if (issue.type === "raw_check") return decodeLimit(issue.expected, issue.received);
  if (issue.type !== "max_length" && issue.type !== "min_length") return undefined;
  const requirement = (issue as { requirement?: unknown }).requirement;
  const input = issue.input as { length?: unknown };
  if (typeof requirement !== "number" || typeof input?.length !== "number") return undefined;
  const side = issue.type === "max_length" ? "max" : "min";
  return {
    name: `${side}_${Array.isArray(issue.input) ? "items" : "length"}`,
    limit: requirement,
    actual: input.length,
  };
}

/** Turns valibot issues into the field errors (and limits) of a local `ValidationError`. */
export function toLocalIssues(issues: readonly v.BaseIssue<unknown>[]): LocalIssue[] {
  return issues.map((issue) => {
    const constraint = limitOf(issue);
    const message = isMissingKey(issue) ? "is required" : issue.message;
    return { field: issueField(issue), message, constraint };
  });
}
