/**
 * Every kind of source the uploader accepts, opened into one small interface (`ByteSource`): a known
 * size, and the bytes of any range still reachable. One file per kind: `blob-source.ts`,
 * `bytes-source.ts`, `stream-source.ts` (web streams and async iterables, reached only through the
 * `fromStream` value the caller passes, so a File upload's bundle leaves the stream reader out).
 */
import { localValidationError } from "@promo-review/errors/internal";
import { blobSource, isBlob } from "./blob-source.js";
import { bytesSource } from "./bytes-source.js";
import { bytesOf, unsupportedSource } from "./pieces.js";
import type { ByteSource, StreamSource, UploadSource } from "./types.js";

/**
 * Opens a source. `declaredSize` is required for a stream (the service needs the size up front) and,
 * when given for a Blob or bytes, must match.
 */
export function openSource(source: UploadSource, declaredSize?: number): ByteSource {
  const bytes = bytesOf(source);
  // The size of a source when it can be known without reading it (Blob, bytes).
  const known = isBlob(source) ? source.size : bytes?.byteLength;
  if (known !== undefined && declaredSize !== undefined && declaredSize !== known) {
    throw localValidationError(
      [{ field: "size", message: `is ${declaredSize} but the source holds ${known} bytes` }],
      "The upload options are invalid",
    );
  }
  if (isBlob(source)) return blobSource(source);
  if (bytes) return bytesSource(bytes);
  if (typeof (source as Partial<StreamSource> | null)?.open !== "function") {
    throw unsupportedSource(
      "must be a Blob, File, ArrayBuffer or typed array; a ReadableStream or AsyncIterable of bytes goes through fromStream(stream) from @promo-review/upload-chunker, with the upload's size",
    );
  }
  if (declaredSize === undefined || !Number.isSafeInteger(declaredSize) || declaredSize < 0) {
    throw localValidationError(
      [
        {
          field: "size",
          message:
            "is required for a stream or async iterable (the file service needs the total size before the first byte)",
        },
      ],
      "The upload options are invalid",
    );
  }
  return (source as StreamSource).open(declaredSize);
}
