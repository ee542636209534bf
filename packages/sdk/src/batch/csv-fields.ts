/**
 * A CSV record as a manifest line: the header names the fields; lists are separated by `;`,
 * `metadata` and `variations` are JSON, booleans are `true` or `false`, and an empty cell is a field
 * left out. Every other column is a string, as the creation request takes it.
 */
import type { ManifestProblem } from "./manifest-problem.js";

const LIST_FIELDS = new Set([
  "productIds",
  "channelIds",
  "tags",
  "files",
  "linkedClaimIds",
  "targetMarketIds",
]);
const JSON_FIELDS = new Set(["metadata", "variations"]);
const BOOLEAN_FIELDS = new Set([
  "submit",
  "evaluate",
  "paidPromotion",
  "isFinancialPromotion",
  "evergreen",
  "applyToAllTargetMarkets",
]);

/** A CSV record turned into a line's fields, with the problems of cells that cannot be read. */
export interface CsvLine {
  value: Record<string, unknown>;
  problems: ManifestProblem[];
}

/** Reads the record `fields` (starting on `line`) under `header`. */
export function csvLine(header: readonly string[], fields: readonly string[], line: number): CsvLine {
  const entries: [string, unknown][] = [];
  const problems: ManifestProblem[] = [];
  if (fields.length > header.length) {
    problems.push({
      line,
      field: "(line)",
      message: `has ${fields.length} cells but the header names ${header.length} columns`,
    });
  }
  header.forEach((name, index) => {
    const cell = fields[index];
    if (cell === undefined || cell === "") return;
    const read = readCell(name, cell);
    if ("error" in read) problems.push({ line, field: name, message: read.error });
    else entries.push([name, read.value]);
  });
  // fromEntries defines each column: an assignment would drop a `__proto__` column without a word.
  const value: Record<string, unknown> = Object.fromEntries(entries);
  const key = value["key"];
  if (typeof key === "string") for (const problem of problems) problem.key = key;
  return { value, problems };
}

function readCell(name: string, cell: string): { value: unknown } | { error: string } {
  if (LIST_FIELDS.has(name)) return { value: cell.split(";").map((item) => item.trim()) };
  if (BOOLEAN_FIELDS.has(name)) {
    const lower = cell.trim().toLowerCase();
    if (lower === "true") return { value: true };
    if (lower === "false") return { value: false };
    return { error: `must be true or false, got ${JSON.stringify(cell)}` };
  }
  if (JSON_FIELDS.has(name)) {
    try {
      return { value: JSON.parse(cell) };
    } catch {
      return {
        error: `must be JSON (${name === "metadata" ? "an object" : "an array"}), got ${JSON.stringify(cell)}`,
      };
    }
  }
  return { value: cell };
}

/** The header's problems: an empty or repeated column name. */
export function headerProblems(header: readonly string[], line: number): ManifestProblem[] {
  const seen = new Set<string>();
  const problems: ManifestProblem[] = [];
  header.forEach((name, index) => {
    if (name === "") problems.push({ line, field: `(column ${index + 1})`, message: "has no name" });
    else if (seen.has(name)) problems.push({ line, field: name, message: "is a repeated column" });
    seen.add(name);
  });
  if (!seen.has("key")) problems.push({ line, field: "key", message: "is a required column" });
  return problems;
}
