/**
 * The file journal's record format: one line per record, `<crc32 as 8 hex digits> <JSON>\n`. A crash
 * at any byte leaves whole records, then at most one torn line: no line ending, or a checksum that
 * does not match. Reading stops before a torn last line; a damaged line with whole records after it
 * is not a torn tail but damage, and is refused.
 */
import { crc32 } from "node:zlib";
import type { JournalRecord } from "./journal.js";

const NEWLINE = 0x0a;

/** The bytes of one record as written. */
export function encodeRecord(record: JournalRecord): Buffer {
  const json = Buffer.from(JSON.stringify(record), "utf8");
  const sum = crc32(json).toString(16).padStart(8, "0");
  return Buffer.concat([Buffer.from(`${sum} `, "latin1"), json, Buffer.from("\n", "latin1")]);
}

/** A line's record, or undefined when the line is not a whole record. */
export function decodeLine(line: Buffer): JournalRecord | undefined {
  if (line.length < 10 || line[8] !== 0x20) return undefined;
  const json = line.subarray(9);
  if (crc32(json).toString(16).padStart(8, "0") !== line.toString("latin1", 0, 8)) return undefined;
  try {
    return JSON.parse(json.toString("utf8")) as JournalRecord;
  } catch {
    return undefined;
  }
}

/** What a read of the journal's bytes found. */
export type ScanStep =
  | { kind: "record"; record: JournalRecord; end: number }
  /** A line that is not a whole record, starting at `start` (its number from 1). */
  | { kind: "bad"; start: number; line: number };

/**
 * Splits a journal's bytes, chunk by chunk, into records. Each record's `end` is the offset just
 * after it (where a torn tail is cut). A last piece without its line ending is reported as `bad`.
 */
export async function* scanRecords(chunks: AsyncIterable<Buffer>): AsyncGenerator<ScanStep> {
  let pending: Buffer = Buffer.alloc(0);
  let offset = 0; // Where `pending` starts in the file.
  let line = 0;
  for await (const chunk of chunks) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let start = 0;
    for (let end = pending.indexOf(NEWLINE, start); end !== -1; end = pending.indexOf(NEWLINE, start)) {
      line += 1;
      const record = decodeLine(pending.subarray(start, end));
      yield record
        ? { kind: "record", record, end: offset + end + 1 }
        : { kind: "bad", start: offset + start, line };
      start = end + 1;
    }
    offset += start;
    pending = pending.subarray(start);
  }
  if (pending.length > 0) yield { kind: "bad", start: offset, line: line + 1 };
}
