/**
 * What an upload tells the uploader's `telemetry` observer, as plain data (the adapter,
 * `@promo-review/opentelemetry`, names it): the operation's details once the file is checked (its
 * requests are named by their routes, `routes.ts`). Without an observer none of it is asked for.
 *
 * No file name anywhere (a user's file name may be personal data), no URL (the http package publishes
 * the redacted one with each request).
 */
import type { ObservationOrigin, ObservedValue } from "@promo-review/errors/observe";
import type { HttpClient } from "@promo-review/http";
import { formatOf } from "./formats.js";
import { UPLOAD_CHUNKER_VERSION } from "./version.js";

/** Who publishes an uploader's observations: this package, redacting as its client does. */
export const uploaderOrigin = (http: HttpClient): ObservationOrigin => ({
  source: { name: "@promo-review/upload-chunker", version: UPLOAD_CHUNKER_VERSION },
  redact: http.redact,
});

/**
 * The upload's format as a metric may carry it: one of the service's formats (`pdf`, `image`, `video`,
 * `audio`, `document`), else `other`. A handful of values, never the raw content type.
 */
export function formatBucket(contentType: string): string {
  return formatOf(contentType) ?? "other";
}

/** The `uploads.upload` operation's details once the file is checked: its size and type. */
export function fileDetails(size: number, contentType: string): Record<string, ObservedValue> {
  return {
    "upload.fileSize": size,
    // The MIME type without its parameters (which could carry a name), lower-cased.
    "upload.contentType": (contentType.split(";")[0] ?? "").trim().toLowerCase(),
    "upload.format": formatBucket(contentType),
  };
}
