/**
 * The name and MIME type of an upload, from the options or, when they leave one out, from the source
 * itself: a `File` knows its name, a `Blob` (or `File`) with a non-empty `type` its MIME type.
 */
import { isBlob } from "./blob-source.js";
import type { FileDetails, UploadSource } from "./types.js";

/**
 * Fills `fileName` and `contentType` from the source where `given` leaves them out. What neither
 * provides stays `undefined`, for `checkUpload` to refuse with a local `ValidationError`.
 */
export function fileDetailsOf(source: UploadSource, given: FileDetails): FileDetails {
  const blob = isBlob(source) ? source : undefined;
  const name = (blob as { name?: unknown } | undefined)?.name;
  return {
    fileName: given.fileName ?? (typeof name === "string" && name !== "" ? name : undefined),
    contentType: given.contentType ?? (blob && blob.type !== "" ? blob.type : undefined),
  };
}
