/**
 * The one place valibot issues become the SDK's words: a dotted field path (`variations.2.details`,
 * `tags.3`, `(body)` for the whole value), the message, and the limit broken, named as the service
 * names its constraints. The operation runner reads request refusals and answer breaches through it,
 * and a package's hand-written checks (`v.rawCheck`) report their limits through {@link addIssueAt}.
 * @packageDocumentation
 */
import type { LocalIssue } from "@promo-review/errors/internal";
import * as v from "valibot";

/** A limit broken: its name (`max_keys`), the limit and the value found. */
export interface BrokenLimit {
  name: string;
  limit: number;
  actual: number;
  /** `max` for an upper limit, `min` for a lower one. */
  side: "max" | "min";
}

/** The `addIssue` a raw check (`v.rawCheck`) is given. */
export type AddIssue = (info: {
  message: string;
  path?: [v.IssuePathItem, ...v.IssuePathItem[]];
  expected?: string;
  received?: string;
}) => void;

/**
 * Reports a problem at `path` (keys below the value being checked) through a raw check's `addIssue`.
 * A limit travels in the issue's `expected` and `received` strings (`max_keys<=20`, `25`), so that a
 * refusal reports it as the server does, as a `constraint_violation` beside the `field_error`. The
 * path items carry only what `getDotPath` reads: the key and where it came from.
 */
export function addIssueAt(
  addIssue: AddIssue,
  input: unknown,
  path: (string | number)[],
  message: string,
  limit?: BrokenLimit,
): void {
  const items = path.map(
    (key) =>
      ({
        type: typeof key === "number" ? "array" : "object",
        origin: "value",
        input,
        key,
        value: undefined,
      }) as unknown as v.IssuePathItem,
  );
  addIssue({
    message,
    // valibot reads each with `?.` and `??`: undefined is "not given".
    path: items.length > 0 ? (items as [v.IssuePathItem, ...v.IssuePathItem[]]) : undefined,
    expected: limit && `${limit.name}${limit.side === "max" ? "<=" : ">="}${limit.limit}`,
    received: limit && `${limit.actual}`,
  });
}

const ENCODED_LIMIT = /^([a-z_]+)(?:<=|>=)(\d+)$/;

/** Reads back a limit written by {@link addIssueAt}. */
function decodeLimit(
  expected: string | null | undefined,
  received: string | undefined,
): LocalIssue["constraint"] {
  const m = expected ? ENCODED_LIMIT.exec(expected) : null;
  if (!m || received === undefined || !/^\d+$/.test(received)) return undefined;
  return { name: m[1]!, limit: Number(m[2]), actual: Number(received) };
}

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
