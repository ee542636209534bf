/**
 * Issues raised by hand-written checks (`v.rawCheck`): the cross-field rules and the per-key metadata
 * rules, which valibot's built-in actions cannot express. A limit travels in the issue's `expected`
 * and `received` strings (`max_keys<=20`, `25`) so that `toLocalIssues` (local-issues.ts) can report it as the
 * server does, as a `constraint_violation` beside the `field_error`.
 */
import type * as v from "valibot";

/** A limit broken: its name (`max_keys`), the limit and the value found. */
export interface BrokenLimit {
  name: string;
  limit: number;
  actual: number;
  /** `max` for an upper limit, `min` for a lower one. */
  side: "max" | "min";
}

type AddIssue = (info: {
  message: string;
  path?: [v.IssuePathItem, ...v.IssuePathItem[]];
  expected?: string;
  received?: string;
}) => void;

/**
 * Reports a problem at `path` (keys below the value being checked) through a raw check's `addIssue`.
 * The path items carry only what `getDotPath` reads: the key and where it came from.
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
export function decodeLimit(
  expected: string | null | undefined,
  received: string | undefined,
): { name: string; limit: number; actual: number } | undefined {
  const m = expected ? ENCODED_LIMIT.exec(expected) : null;
  if (!m || received === undefined || !/^\d+$/.test(received)) return undefined;
  return { name: m[1]!, limit: Number(m[2]), actual: Number(received) };
}
