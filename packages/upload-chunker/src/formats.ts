/**
 * Upload formats and their size limits, derived from the MIME type sent at initiation.
 *
 * | format     | content types                                                                 | limit (bytes)          |
 * |------------|-------------------------------------------------------------------------------|------------------------|
 * | `pdf`      | `application/pdf`                                                             | 31457280 (30 MiB)      |
 * | `image`    | `image/*`                                                                     | 31457280 (30 MiB)      |
 * | `video`    | `video/*`                                                                     | 2147483648 (2 GiB)     |
 * | `audio`    | `audio/*`                                                                     | 2147483648 (2 GiB)     |
 * | `document` | `application/msword`, `application/vnd.openxmlformats-officedocument.*`,      | 10485760 (10 MiB)      |
 * |            | `application/vnd.oasis.opendocument.*`, `application/vnd.ms-excel`,           |                        |
 * |            | `application/vnd.ms-powerpoint`, `application/rtf`, `text/plain`, `text/rtf`, |                        |
 * |            | `text/csv`, `text/html`, `text/markdown`                                      |                        |
 *
 * Parameters (`; charset=utf-8`) and letter case are ignored. A type outside the table is not refused
 * locally: the service decides, so a format it learns later is not blocked by an old SDK.
 */
import type { UploadFormat } from "./types.js";

/** The largest file, in bytes, the service accepts for each format (spec, "Limits"). */
export const FORMAT_LIMITS: Readonly<Record<UploadFormat, number>> = Object.freeze({
  pdf: 31_457_280,
  image: 31_457_280,
  video: 2_147_483_648,
  audio: 2_147_483_648,
  document: 10_485_760,
});

const DOCUMENT_TYPES = [
  /^application\/msword$/,
  /^application\/vnd\.openxmlformats-officedocument\./,
  /^application\/vnd\.oasis\.opendocument\./,
  /^application\/vnd\.ms-(excel|powerpoint)$/,
  /^application\/rtf$/,
  /^text\/(plain|rtf|csv|html|markdown)$/,
];

/**
 * The upload format of a content type (see the table in this module), or `undefined` for a type the
 * table does not know.
 */
export function formatOf(contentType: string): UploadFormat | undefined {
  const mime = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (mime === "application/pdf") return "pdf";
  const top = /^(image|video|audio)\/[\w.+-]+$/.exec(mime)?.[1];
  if (top) return top as UploadFormat;
  if (DOCUMENT_TYPES.some((pattern) => pattern.test(mime))) return "document";
  return undefined;
}

/** The size limit of a content type's format, or `undefined` when the format is unknown. */
export function limitOf(contentType: string): number | undefined {
  const format = formatOf(contentType);
  return format === undefined ? undefined : FORMAT_LIMITS[format];
}
