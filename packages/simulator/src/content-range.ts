/**
 * Parsing of the chunk PUT's `Content-Range: bytes <start>-<end>/<total or *>` header.
 */

/** A parsed Content-Range: inclusive byte offsets and the total when known. */
export interface ContentRange {
  start: number;
  end: number;
  /** The total size, or undefined for `*`. */
  total: number | undefined;
}

/**
 * Parses a Content-Range header value. Returns a reason string when it is missing or malformed, so
 * the VALIDATION_ERROR can say what was wrong.
 */
export function parseContentRange(value: string | undefined): ContentRange | string {
  if (value === undefined || value === "") return "Content-Range header is required";
  const match = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16}|\*)$/.exec(value);
  if (!match) return "Content-Range must be 'bytes <start>-<end>/<total or *>'";
  const start = Number(match[1]);
  const end = Number(match[2]);
  const total = match[3] === "*" ? undefined : Number(match[3]);
  if (end < start) return "Content-Range end must not be before start";
  if (total !== undefined && end >= total) return "Content-Range end must be less than the total";
  return { start, end, total };
}
