/**
 * Chunked, resumable uploads to the Promotion Compliance Review file service from any runtime (no
 * Node built-ins here; file paths are on `@promo-review/upload-chunker/node`), with bounded memory,
 * per-chunk retries, resume and progress.
 * @packageDocumentation
 */
export { checkUpload } from "./checks.js";
export { chunkEnd, contentRange, streamingByDefault, supportsRequestStreams } from "./chunks.js";
export { uploadStateOf, withUploadState } from "./failure.js";
export { fileDetailsOf } from "./file-details.js";
export { FORMAT_LIMITS, formatOf, limitOf } from "./formats.js";
export { DOCUMENTED_MAX_CHUNK_SIZE, initiateUpload, uploadPath } from "./initiate.js";
export { MAX_PIECE } from "./pieces.js";
export { REPORT_STEP } from "./progress.js";
export { classifyChunkFailure, putChunk } from "./put-chunk.js";
export { RESUME_CHUNK_SIZE } from "./resume-or-initiate.js";
export {
  FINGERPRINT_BYTES,
  fingerprintOf,
  memoryResumeStore,
  webStorageResumeStore,
} from "./resume-store.js";
export { openSource } from "./sources.js";
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
  Uploader,
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
export {
  createUploader,
  DEFAULT_CHUNK_RETRY_LIMIT,
  DEFAULT_MAX_RESYNCS,
  DEFAULT_READ_AHEAD_BYTES,
} from "./uploader.js";
export {
  checkUploadId,
  DEFAULT_WAIT_TIMEOUT_MS,
  getUploadState,
  UPLOAD_STATUSES,
  waitForUpload,
} from "./wait.js";
