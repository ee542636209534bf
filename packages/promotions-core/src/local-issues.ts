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
    return { field: issueField(issue), message: issue.message, ...(constraint ? { constraint } : {}) };
  });
}
