/**
 * Node-only helpers: a file path as an upload source. Kept off the main entry so browsers, Deno and
 * Workers never load a Node built-in.
 * @packageDocumentation
 */
import { openAsBlob } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";

/**
 * A file on disk as a `File` for `uploader.upload()`. `fs.openAsBlob` gives a Blob backed by the
 * file, not by memory: chunks are read from disk only as they are sent, so a 2 GiB video costs no
 * more memory than a small one. `name` and `lastModified` come from the path and the file's mtime
 * (they feed the resume fingerprint), `type` is optional. If the file changes after this call, reading
 * it fails instead of sending a mix of old and new bytes.
 */
export async function fileSource(path: string, options: { type?: string } = {}): Promise<File> {
  const [blob, info] = await Promise.all([
    openAsBlob(path, options.type ? { type: options.type } : {}),
    stat(path),
  ]);
  // Wrapping a Blob in a File references its bytes; nothing is read here.
  return new File([blob], basename(path), { type: blob.type, lastModified: Math.trunc(info.mtimeMs) });
}
