import { kindOf } from "@promo-review/errors/internal";
import type { EvaluationCompletedData, EvaluationCompletedEvent, EvaluationIssue } from "./payload.js";

/** Reports one place where the body does not match the spec: its path and what was found. */
export type Warn = (field: string, message: string) => void;

type Json = Record<string, unknown>;

const EVENT_STRINGS = ["timestamp"] as const;
const DATA_STRINGS = ["status", "evaluationId", "promotionId", "versionId"] as const;
const ISSUE_STRINGS = ["commentId", "issueId", "severity", "category", "message", "excerpt"] as const;

/** Whether `value` is a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function join(path: string, key: string | number): string {
  return path ? `${path}.${key}` : String(key);
}

const isText = (value: unknown) => value === undefined || typeof value === "string";

/**
 * `record` itself when each of `keys` is absent or a string; else a copy without the others (they stay
 * in the delivery's `payload`), so that a field typed `string` is one. Copying only on a mismatch, and
 * building a path only for a warning, keeps a large, well-formed body from costing more than its parse.
 */
function withStrings<T extends Json>(
  record: T,
  keys: readonly string[],
  warn: Warn,
  path: string,
  index?: number,
): T {
  let copy: Json | undefined;
  for (const key of keys) {
    const value = record[key];
    if (isText(value)) continue;
    const at = index === undefined ? path : join(path, index);
    warn(join(at, key), `Expected a string, got ${kindOf(value)}; left out of the typed event`);
    // A copy by spread keeps keys such as `__proto__` (own properties after JSON.parse) as own keys.
    copy ??= { ...record };
    delete copy[key];
  }
  return (copy ?? record) as T;
}

function readIssues(value: unknown, path: string, warn: Warn): EvaluationIssue[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    warn(path, `Expected an array of issues, got ${kindOf(value)}; typed as no issues`);
    return [];
  }
  let typed: EvaluationIssue[] | undefined;
  for (let i = 0; i < value.length; i++) {
    const issue: unknown = value[i];
    let kept: EvaluationIssue | undefined;
    // withStrings returns the issue itself when its fields are text: no copy on the common path.
    if (isRecord(issue)) kept = withStrings(issue, ISSUE_STRINGS, warn, path, i);
    else warn(join(path, i), `Expected an issue object, got ${kindOf(issue)}; left out of the typed issues`);
    if (kept !== issue && !typed) typed = value.slice(0, i) as EvaluationIssue[];
    if (typed && kept) typed.push(kept);
  }
  return typed ?? (value as EvaluationIssue[]);
}

function readMetadata(value: unknown, path: string, warn: Warn): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    warn(path, `Expected an object of strings, got ${kindOf(value)}; typed as empty`);
    return {};
  }
  return withStrings(value, Object.keys(value), warn, path) as Record<string, string>;
}

/**
 * Types an `evaluation-completed` body where it matches what the spec states (status, issues, each
 * with an optional `commentId`, and metadata), reading them under `data` or, when there is no `data`
 * object, at the top level (a flat payload). Never throws; every mismatch goes to `warn`.
 */
export function readEvaluationCompleted(json: Json, warn: Warn): EvaluationCompletedEvent {
  const nested = isRecord(json["data"]);
  if (!nested && json["data"] !== undefined) {
    warn("data", `Expected an object, got ${kindOf(json["data"])}; the fields are read at the top level`);
  }
  let source: Json;
  if (nested) source = json["data"] as Json;
  else {
    const { type: _type, timestamp: _timestamp, data: _data, ...flat } = json;
    source = flat;
  }
  const path = nested ? "data" : "";
  if (source["status"] === undefined) warn(join(path, "status"), "The evaluation status is missing");
  const data: EvaluationCompletedData = {
    ...withStrings(source, DATA_STRINGS, warn, path),
    issues: readIssues(source["issues"], join(path, "issues"), warn),
    metadata: readMetadata(source["metadata"], join(path, "metadata"), warn),
  };
  return { ...withStrings(json, EVENT_STRINGS, warn, ""), type: "evaluation-completed", data };
}
