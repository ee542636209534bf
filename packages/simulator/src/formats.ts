/**
 * File formats and their size limits, derived from the MIME type given at upload initiation.
 *
 * | format   | MIME types                                                          | limit (bytes) |
 * |----------|---------------------------------------------------------------------|---------------|
 * | pdf      | application/pdf                                                     | 31457280      |
 * | image    | image/*                                                             | 31457280      |
 * | video    | video/*                                                             | 2147483648    |
 * | audio    | audio/*                                                             | 2147483648    |
 * | document | msword, openxmlformats, opendocument, text/plain, rtf, csv, ...     | 10485760      |
 */

/** The promotion file formats of the spec (`text` has no upload). */
export type FileFormat = "text" | "video" | "audio" | "image" | "pdf" | "document";

// The spec's fileFormat enum ("Promotion creation request") and upload size limits ("Limits"), copied
// here and not imported from the client packages: the simulator is written from the spec, not from them (ARCHITECTURE.md, "Rules behind the larger choices"), so a client that misreads the spec is caught, not copied.
/** Every value of the `fileFormat` enum. */
export const FILE_FORMATS: readonly FileFormat[] = ["text", "video", "audio", "image", "pdf", "document"];

/** 30 MiB: PDF and images. */
export const PDF_IMAGE_LIMIT = 31_457_280;
/** 2 GiB: video and audio. */
export const MEDIA_LIMIT = 2_147_483_648;
/** 10 MiB: documents. */
export const DOCUMENT_LIMIT = 10_485_760;

const DOCUMENT_TYPES = [
  /^application\/msword$/,
  /^application\/vnd\.openxmlformats-officedocument\./,
  /^application\/vnd\.oasis\.opendocument\./,
  /^application\/vnd\.ms-(excel|powerpoint)$/,
  /^application\/rtf$/,
  /^text\/(plain|rtf|csv|html|markdown)$/,
];

/** The upload format of a MIME type and its size limit, or undefined when unsupported. */
export function formatOfContentType(contentType: string): { format: FileFormat; limit: number } | undefined {
  const mime = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (mime === "application/pdf") return { format: "pdf", limit: PDF_IMAGE_LIMIT };
  if (/^image\/[\w.+-]+$/.test(mime)) return { format: "image", limit: PDF_IMAGE_LIMIT };
  if (/^video\/[\w.+-]+$/.test(mime)) return { format: "video", limit: MEDIA_LIMIT };
  if (/^audio\/[\w.+-]+$/.test(mime)) return { format: "audio", limit: MEDIA_LIMIT };
  if (DOCUMENT_TYPES.some((pattern) => pattern.test(mime)))
    return { format: "document", limit: DOCUMENT_LIMIT };
  return undefined;
}

const EXTENSIONS: Record<string, FileFormat> = {
  pdf: "pdf",
  png: "image",
  jpg: "image",
  jpeg: "image",
  gif: "image",
  webp: "image",
  mp4: "video",
  mov: "video",
  webm: "video",
  mp3: "audio",
  wav: "audio",
  m4a: "audio",
  doc: "document",
  docx: "document",
  odt: "document",
  txt: "document",
  rtf: "document",
  xlsx: "document",
  pptx: "document",
};

/** The format of a file name by its extension (for cloud-drive links), or undefined when unknown. */
export function formatOfFileName(name: string): FileFormat | undefined {
  const dot = name.lastIndexOf(".");
  if (dot < 0) return undefined;
  const extension = name.slice(dot + 1).toLowerCase();
  // Own keys only: "report.constructor" names no format, not Object.prototype's constructor.
  return Object.hasOwn(EXTENSIONS, extension) ? EXTENSIONS[extension] : undefined;
}
