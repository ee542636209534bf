/**
 * CSV manifests, record by record. papaparse's `Parser` (the one its own chunked readers use) does
 * the quoting rules; this file feeds it the stream chunk by chunk, keeping only the unfinished last
 * record between chunks, and numbers each record by the line it starts on.
 */
import Papa from "papaparse";
import { type TextSource, textChunks } from "./text-lines.js";

/** One CSV record: its fields and the line (from 1) it starts on. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** The records of a CSV text stream (the header is the first record). */
export async function* csvRecords(source: TextSource): AsyncGenerator<CsvRecord> {
  const chunks = textChunks(source);
  // The line ending is read from the first line, as papaparse's own readers do.
  let text = "";
  let ended = false;
  while (!text.includes("\n")) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    text += next.value;
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const newline = /\r\n/.test(text.slice(0, text.indexOf("\n") + 1)) ? "\r\n" : "\n";
  const ready: CsvRecord[] = [];
  let line = 1;
  let consumed = 0; // Offset of the start of `pending` in the whole text.
  let pending = "";
  let rowStart = 0; // Offset of the next record's start in the whole text.
  const parser = new Papa.Parser({
    delimiter: ",",
    newline,
    step: (result: Papa.ParseStepResult<string[]>) => {
      const end = result.meta.cursor;
      // In step mode `data` holds the one record.
      const fields = (result.data as unknown as string[][])[0] ?? [];
      const record = { line, fields };
      if (!isBlank(record)) ready.push(record);
      line += countNewlines(pending, rowStart - consumed, end - consumed);
      rowStart = end;
    },
  } as Papa.ParseConfig);
  const feed = (chunk: string, last: boolean) => {
    pending += chunk;
    parser.parse(pending, consumed, !last);
    // What the parser left (the unfinished last record) is fed again with the next chunk.
    pending = pending.slice(rowStart - consumed);
    consumed = rowStart;
  };
  if (ended) feed(text, true);
  else {
    feed(text, false);
    yield* ready.splice(0);
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      feed(next.value, false);
      yield* ready.splice(0);
    }
    feed("", true);
  }
  yield* ready.splice(0);
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) count += 1;
  return count;
}

/** A blank line (one empty field), which a manifest may have anywhere and which is skipped. */
const isBlank = (record: CsvRecord) => record.fields.length === 1 && record.fields[0] === "";
