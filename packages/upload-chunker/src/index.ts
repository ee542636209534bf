/**
 * Chunked, resumable uploads to the Promotion Compliance Review file service from any runtime (no
 * Node built-ins here; file paths are on `@promo-review/upload-chunker/node`), with bounded memory,
 * per-chunk retries, resume and progress.
 * @packageDocumentation
 */
export { checkUpload } from "./checks.js";
export { chunkEnd, contentRange, streamingByDefault, supportsRequestStreams } from "./chunks.js";
export { type UploadStateDetail, uploadStateOf, withUploadState } from "./failure.js";
export { type FileDetails, fileDetailsOf } from "./file-details.js";
export { FORMAT_LIMITS, formatOf, limitOf, type UploadFormat } from "./formats.js";
export { DOCUMENTED_MAX_CHUNK_SIZE, type Initiated, initiateUpload, uploadPath } from "./initiate.js";
export { MAX_PIECE } from "./pieces.js";
export { REPORT_STEP, type UploadProgress } from "./progress.js";
export {
  type ChunkAnswer,
  type ChunkFailure,
  classifyChunkFailure,
  type PutChunkRequest,
  putChunk,
} from "./put-chunk.js";
export {
  FINGERPRINT_BYTES,
  fingerprintOf,
  type KeyValueStorage,
  memoryResumeStore,
  type ResumeRecord,
  type ResumeStore,
  webStorageResumeStore,
} from "./resume-store.js";
export { openSource } from "./sources.js";
export {
  type ChunkEvent,
  type InitiatedEvent,
  RESUME_CHUNK_SIZE,
  type RetryEvent,
  type UploadEvents,
  type UploadOptions,
  type UploadResponse,
  type UploadResult,
} from "./transfer.js";
export type { ByteSource, SourceRange, UploadSource } from "./types.js";
export { Upload } from "./upload.js";
export {
  createUploader,
  DEFAULT_CHUNK_RETRY_LIMIT,
  DEFAULT_MAX_RESYNCS,
  DEFAULT_READ_AHEAD_BYTES,
  type StatusOptions,
  type Uploader,
  type UploaderOptions,
} from "./uploader.js";
export {
  checkUploadId,
  DEFAULT_WAIT_TIMEOUT_MS,
  getUploadState,
  UPLOAD_STATUSES,
  type UploadState,
  type UploadStatus,
  type WaitOptions,
  waitForUpload,
} from "./wait.js";
