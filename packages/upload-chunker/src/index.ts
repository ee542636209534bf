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
export { DEFAULT_CHUNK_MIN_BYTES_PER_SECOND } from "./put-chunk.js";
export { fingerprintOf, memoryResumeStore, RESUME_STORE_UNAVAILABLE } from "./resume-store.js";
export { startUpload, Upload, type UploadStarter } from "./started-upload.js";
export { fromStream } from "./stream-source.js";
export type {
  ByteSource,
  ChunkEvent,
  FileDetails,
  InitiatedEvent,
  KeyValueStorage,
  ResumeRecord,
  ResumeStore,
  ResumeStoreUse,
  RetryEvent,
  SourceRange,
  StatusOptions,
  StreamSource,
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
  WebLocks,
} from "./types.js";
export { createUploader, DEFAULT_MAX_RESYNCS, type Uploader } from "./uploader.js";
export { checkUploadId, DEFAULT_WAIT_TIMEOUT_MS, UPLOAD_STATUSES } from "./wait.js";
export {
  DEFAULT_RESUME_TTL_MS,
  type WebStorageResumeStoreOptions,
  webStorageResumeStore,
} from "./web-storage-store.js";
