/**
 * Reading back a resume record that a store kept as text (a state file, a Redis value). Used by the
 * stores on the `./node` and `./redis` sub-paths only: the main entry is over its size budget, so
 * `webStorageResumeStore` keeps its own few checks rather than grow the entry by this function.
 */
import type { ResumeRecord } from "./types.js";

/**
 * The record in `raw` (the JSON of a {@link ResumeRecord}, extra fields ignored), or `undefined` when
 * it is missing, damaged or incomplete, or when `extra` refuses it. A damaged entry means "nothing to
 * resume", never a failed upload.
 */
export function parseResumeRecord(
  raw: string | null | undefined,
  extra?: (parsed: Record<string, unknown>) => boolean,
): ResumeRecord | undefined {
  try {
    const r = JSON.parse(raw ?? "null") as Record<string, unknown> | null;
    if (
      typeof r?.["uploadId"] === "string" &&
      Number.isSafeInteger(r["maxChunkSize"]) &&
      Number.isSafeInteger(r["fileSize"]) &&
      (!extra || extra(r))
    ) {
      return {
        uploadId: r["uploadId"],
        maxChunkSize: r["maxChunkSize"] as number,
        fileSize: r["fileSize"] as number,
      };
    }
  } catch {
    // Damaged: nothing to resume.
  }
  return undefined;
}
