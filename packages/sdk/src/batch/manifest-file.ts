/**
 * A manifest file on disk (Node only, `@promo-review/sdk/node`): its format from its extension, each
 * pass a fresh stream of the file (so checking it and then running it never holds it in memory), the
 * `files` of each line resolved against the manifest's folder, and each file checked to exist.
 */
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, extname, isAbsolute, resolve } from "node:path";
import {
  type ManifestCheck,
  type ManifestEntry,
  type ManifestFormat,
  readManifest,
  summarise,
} from "./manifest.js";

/** A manifest read from a file. */
export interface ManifestFile {
  /** The manifest's absolute path. */
  readonly path: string;
  readonly format: ManifestFormat;
  /**
   * Its lines, checked (see `readManifest`), with `files` made absolute (relative to the manifest's
   * folder) and a missing file reported as a problem of its line.
   */
  entries(options?: { signal?: AbortSignal | undefined }): AsyncGenerator<ManifestEntry>;
  /** The whole file checked, as `checkManifest` does. */
  check(options?: { signal?: AbortSignal | undefined }): Promise<ManifestCheck>;
}

/** The format a manifest's extension names: `.csv` is CSV, anything else JSON Lines. */
export function manifestFormatOf(path: string): ManifestFormat {
  return extname(path).toLowerCase() === ".csv" ? "csv" : "jsonl";
}

/** Opens a manifest file (nothing is read until `entries` or `check`). */
export function manifestFile(
  path: string,
  options: { format?: ManifestFormat | undefined } = {},
): ManifestFile {
  const absolute = resolve(path);
  const format = options.format ?? manifestFormatOf(absolute);
  const folder = dirname(absolute);
  async function* entries(read: { signal?: AbortSignal | undefined } = {}): AsyncGenerator<ManifestEntry> {
    const stream = createReadStream(absolute, { signal: read.signal });
    try {
      for await (const entry of readManifest(stream, { format, signal: read.signal })) {
        yield await withFiles(entry, folder);
      }
    } finally {
      stream.destroy();
    }
  }
  return {
    path: absolute,
    format,
    entries,
    check: (read = {}) => summarise(entries(read)),
  };
}

/** The entry with its files resolved, or with a problem for each file that is not there. */
async function withFiles(entry: ManifestEntry, folder: string): Promise<ManifestEntry> {
  const files = entry.item?.files;
  if (!entry.item || !files) return entry;
  const resolved = files.map((file) => (isAbsolute(file) ? file : resolve(folder, file)));
  const problems: ManifestEntry["problems"] = [];
  await Promise.all(
    resolved.map(async (file, index) => {
      const found = await stat(file).catch(() => undefined);
      if (!found?.isFile()) {
        problems.push({
          line: entry.line,
          key: entry.key,
          field: `files.${index}`,
          message: `${file} is not a file`,
        });
      }
    }),
  );
  if (problems.length > 0) {
    problems.sort((a, b) => a.field.localeCompare(b.field));
    return { line: entry.line, key: entry.key, problems };
  }
  return { ...entry, item: { ...entry.item, files: resolved } };
}
