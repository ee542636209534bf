/**
 * Chunked, resumable uploads to the Promotion Compliance Review file service from any runtime (no
 * Node built-ins here; file paths are on `@promo-review/upload-chunker/node`), with bounded memory,
 * per-chunk retries, resume and progress.
 * @packageDocumentation
 */
export { checkUpload } from "./checks.js";
export { streamingByDefault } from "./chunks.js";
export { uploadStateOf } from "./failure.js";
export { fileDetailsOf } from "./file-details.js";
export { FORMAT_LIMITS, formatOf, limitOf } from "./formats.js";
export { fingerprintOf, memoryResumeStore, webStorageResumeStore } from "./resume-store.js";
export type {
  ByteSource,
  ChunkEvent,
  FileDetails,
  InitiatedEvent,
  KeyValueStorage,
  ResumeRecord,
  ResumeStore,
  RetryEvent,
  SourceRange,
  StatusOptions,
  UploadEvents,
  UploaderOptions,
  UploadFormat,
  UploadOptions,
  UploadProgress,
  UploadResponse,
  UploadResult,
  UploadSource,
  UploadState,
  UploadStateDetail,
  UploadStatus,
  WaitOptions,
} from "./types.js";
export { Upload } from "./upload.js";
export { createUploader, DEFAULT_MAX_RESYNCS, type Uploader } from "./uploader.js";
export { checkUploadId, DEFAULT_WAIT_TIMEOUT_MS, UPLOAD_STATUSES } from "./wait.js";
