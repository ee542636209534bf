/**
 * Reading a batch manifest (JSON Lines or CSV) from a stream of text, line by line, in any runtime:
 * `readManifest` yields each line checked (its item, or its problems), `checkManifest` reads the whole
 * manifest and sums it up, so a batch is refused before anything is sent. Memory holds one line and
 * the set of keys seen (for uniqueness), never the manifest.
 */
import { checkItem } from "./check-item.js";
import { csvLine, headerProblems } from "./csv-fields.js";
import type { BatchItem } from "./items.js";
import { csvRecords } from "./manifest-csv.js";
import type { ManifestProblem } from "./manifest-problem.js";
import { numberedLines, type TextSource } from "./text-lines.js";

/** A manifest's format: JSON Lines (one object a line) or CSV (a header row, then one line a promotion). */
export type ManifestFormat = "jsonl" | "csv";

/** How to read a manifest. */
export interface ManifestOptions {
  format: ManifestFormat;
  /** Stops the reading between lines. */
  signal?: AbortSignal | undefined;
}

/** One line of a manifest, checked: its item when it has no problem. */
export interface ManifestEntry {
  line: number;
  /** The line's `key` when it is a string (also on a line with problems, to name it). */
  key?: string | undefined;
  /** The item, when the line has no problem. */
  item?: BatchItem | undefined;
  problems: ManifestProblem[];
}

/** What a batch of valid items will do, counted for its plan. */
export interface BatchTotals {
  items: number;
  /** Files to upload, over every item. */
  files: number;
  /** Links to capture. */
  links: number;
  submits: number;
  evaluations: number;
}

/** A whole manifest, checked. */
export interface ManifestCheck {
  /** Lines holding an item (blank lines and the CSV header are not counted). */
  lines: number;
  /** What the valid lines will do. */
  totals: BatchTotals;
  /** Every problem of every line, in line order. */
  problems: ManifestProblem[];
}

/** The raw lines of a manifest: each line's value, or why it could not be read. */
async function* rawLines(
  source: TextSource,
  format: ManifestFormat,
): AsyncGenerator<{ line: number; value?: unknown; problems: ManifestProblem[] }> {
  if (format === "jsonl") {
    for await (const { line, text } of numberedLines(source)) {
      if (text.trim() === "") continue;
      try {
        yield { line, value: JSON.parse(text), problems: [] };
      } catch (error) {
        yield {
          line,
          problems: [{ line, field: "(line)", message: `is not JSON: ${(error as Error).message}` }],
        };
      }
    }
    return;
  }
  let header: string[] | undefined;
  for await (const record of csvRecords(source)) {
    if (header === undefined) {
      header = record.fields.map((name) => name.trim());
      const problems = headerProblems(header, record.line);
      // Without a sound header no line can be read: the header's problems are the manifest's.
      if (problems.length > 0) {
        yield { line: record.line, problems };
        return;
      }
      continue;
    }
    const { value, problems } = csvLine(header, record.fields, record.line);
    yield problems.length > 0 ? { line: record.line, problems } : { line: record.line, value, problems };
  }
}

/**
 * Reads a manifest line by line, each line checked with every rule the SDK checks (promotions-core's
 * validation of the creation request), the batch's own fields, the metadata room the runner needs
 * (at most 18 keys) and key uniqueness (a repeated key is a problem of the later line).
 */
export async function* readManifest(
  source: TextSource,
  options: ManifestOptions,
): AsyncGenerator<ManifestEntry> {
  const { format, signal } = options;
  if (format !== "jsonl" && format !== "csv")
    throw new RangeError(`format must be "jsonl" or "csv", got ${String(format)}`);
  const keys = new Map<string, number>();
  for await (const raw of rawLines(source, format)) {
    signal?.throwIfAborted();
    const record = raw.value as Record<string, unknown> | undefined;
    const key = typeof record?.["key"] === "string" ? (record["key"] as string) : undefined;
    const problems = raw.problems.length > 0 ? raw.problems : checkItem(raw.value, raw.line);
    if (key !== undefined) {
      const first = keys.get(key);
      if (first === undefined) keys.set(key, raw.line);
      else problems.push({ line: raw.line, key, field: "key", message: `repeats the key of line ${first}` });
    }
    yield problems.length > 0
      ? { line: raw.line, key, problems }
      : { line: raw.line, key, item: raw.value as BatchItem, problems };
  }
}

/** Reads the whole manifest: how many lines, what the valid ones will do, and every problem. */
export function checkManifest(source: TextSource, options: ManifestOptions): Promise<ManifestCheck> {
  return summarise(readManifest(source, options));
}

/** Sums up checked lines (of a stream, or of a file through `@promo-review/sdk/node`). */
export async function summarise(entries: AsyncIterable<ManifestEntry>): Promise<ManifestCheck> {
  const totals: BatchTotals = { items: 0, files: 0, links: 0, submits: 0, evaluations: 0 };
  const problems: ManifestProblem[] = [];
  let lines = 0;
  for await (const entry of entries) {
    lines += 1;
    problems.push(...entry.problems);
    const { item } = entry;
    if (!item) continue;
    totals.items += 1;
    totals.files += item.files?.length ?? 0;
    if (item.link !== undefined) totals.links += 1;
    if (item.submit) totals.submits += 1;
    if (item.evaluate) totals.evaluations += 1;
  }
  return { lines, totals, problems };
}
