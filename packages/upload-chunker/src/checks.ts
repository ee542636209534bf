/**
 * The checks made before any request, so that a file the service would refuse is refused here, with
 * nothing sent: an empty name or content type, an empty file, a size over the format's limit.
 */
import { type LocalIssue, localValidationError } from "@promo-review/errors/internal";
import { FORMAT_LIMITS, formatOf } from "./formats.js";

/**
 * Throws a local `ValidationError` naming every problem with an upload's name, content type and size.
 * An empty file is refused because the file service requires `fileSize` of at least 1. A content type
 * outside the format table passes: the service decides, so a format it learns later is not blocked.
 */
export function checkUpload(input: { fileName: unknown; contentType: unknown; size: number }): void {
  const issues: LocalIssue[] = [];
  if (typeof input.fileName !== "string" || input.fileName.trim() === "") {
    issues.push({
      field: "fileName",
      message:
        "must be a non-empty file name (with its extension): pass fileName, or upload a File that has a name",
    });
  }
  if (typeof input.contentType !== "string" || input.contentType.trim() === "") {
    issues.push({
      field: "contentType",
      message:
        "must be a non-empty MIME type, for example application/pdf: pass contentType, or upload a Blob or File that has a type",
    });
  }
  if (input.size < 1) {
    issues.push({
      field: "fileSize",
      message: "must be at least 1 byte (the file service refuses empty files)",
    });
  }
  const format = typeof input.contentType === "string" ? formatOf(input.contentType) : undefined;
  if (format !== undefined && input.size > FORMAT_LIMITS[format]) {
    issues.push({
      field: "fileSize",
      message: `must be at most ${FORMAT_LIMITS[format]} bytes for the ${format} format`,
      constraint: { name: "max_file_size", limit: FORMAT_LIMITS[format], actual: input.size },
    });
  }
  if (issues.length > 0) throw localValidationError(issues, "The file cannot be uploaded");
}
