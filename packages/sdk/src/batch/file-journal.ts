/**
 * The file journal (Node, `@promo-review/sdk/node`): an append-only file of checksummed records (see
 * `file-journal-records.ts`), each append written (and by default flushed to the disk) before the
 * runner goes on. A crash at any byte leaves it readable: reading stops before a torn last record,
 * and the first append cuts it off, so the next record starts on a line of its own. A damaged record
 * with whole ones after it is refused (`JOURNAL_DAMAGED`): that is not a crash but damage.
 */
import { createReadStream } from "node:fs";
import { type FileHandle, open, stat, truncate } from "node:fs/promises";
import { PromoReviewError } from "@promo-review/errors";
import { encodeRecord, scanRecords } from "./file-journal-records.js";
import { takeFileLease } from "./file-lease.js";
import { type BatchJournal, JOURNAL_DAMAGED, type JournalRecord } from "./journal.js";

/** Options of {@link fileJournal}. */
export interface FileJournalOptions {
  /**
   * Flush each record to the disk before going on (`fdatasync`), so it survives a power cut, not
   * only a crash of the process (default true).
   */
  sync?: boolean | undefined;
}

/** A journal in the file at `path` (created on the first append); its lease is `<path>.lease`. */
export function fileJournal(path: string, options: FileJournalOptions = {}): BatchJournal {
  const sync = options.sync ?? true;
  let handle: Promise<FileHandle> | undefined;
  let writing: Promise<unknown> = Promise.resolve();

  /** Opens the file for appending, once, after cutting off a torn last record. */
  const opened = () => {
    handle ??= (async () => {
      const end = await wholeEnd(path);
      const size = await stat(path).then(
        (found) => found.size,
        () => 0,
      );
      if (size > end) await truncate(path, end);
      return open(path, "a");
    })();
    return handle;
  };

  return {
    read: (read = {}) => records(path, read.signal),
    append: (record, append = {}) => {
      append.signal?.throwIfAborted();
      // One write at a time, in the order asked: records never interleave.
      const written = writing.then(async () => {
        const file = await opened();
        await file.write(encodeRecord(record));
        if (sync) await file.datasync();
      });
      writing = written.catch(() => undefined);
      return written;
    },
    lease: (lease) => takeFileLease(`${path}.lease`, lease),
    close: async () => {
      await writing;
      if (handle) await (await handle).close();
      handle = undefined;
    },
  };
}

/** The journal's bytes, or nothing when there is no file yet. */
async function* bytesOf(path: string, signal?: AbortSignal): AsyncGenerator<Buffer> {
  const stream = createReadStream(path, { signal });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  } finally {
    stream.destroy();
  }
}

/**
 * Every whole record with the offset just after it; stops before a torn last record; refuses a
 * damaged one followed by others.
 */
async function* wholeRecords(
  path: string,
  signal?: AbortSignal,
): AsyncGenerator<{ record: JournalRecord; end: number }> {
  let torn: { line: number } | undefined;
  for await (const step of scanRecords(bytesOf(path, signal))) {
    if (torn) throw damaged(path, torn.line);
    if (step.kind === "bad") torn = step;
    else yield step;
  }
}

async function* records(path: string, signal?: AbortSignal): AsyncGenerator<JournalRecord> {
  for await (const { record } of wholeRecords(path, signal)) yield record;
}

/** The offset just after the last whole record (where a torn tail is cut). */
async function wholeEnd(path: string): Promise<number> {
  let end = 0;
  for await (const step of wholeRecords(path)) end = step.end;
  return end;
}

function damaged(path: string, line: number): PromoReviewError {
  return new PromoReviewError({
    code: JOURNAL_DAMAGED,
    message: `The journal ${path} is damaged at line ${line}: a record there is not whole, and records follow it (a crash leaves a torn record only at the end). Keep the file for inspection and start a new journal`,
    retryable: false,
  });
}
