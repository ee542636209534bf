/**
 * The content type of a file from its extension, for `upload` and `create --file`: the service decides
 * the format (and so the size limit) from it. `--content-type` overrides the guess. The table is
 * mime-types' (the maintained mime-db, which knows .xls, .ppt, .avif and hundreds more); which types
 * the service takes, and their size limits, stay `formatOf`'s (upload-chunker).
 */
import { lookup } from "mime-types";

/** The content type for `fileName`, or `undefined` when its extension is not known. */
export function contentTypeOf(fileName: string): string | undefined {
  // Only a real extension: mime-types would also map a bare name such as "pdf".
  if (!/\.[^./\\]+$/.test(fileName)) return undefined;
  const type = lookup(fileName);
  return type === false ? undefined : type;
}
