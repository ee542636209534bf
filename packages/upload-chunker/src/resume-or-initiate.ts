/**
 * Phase 1 of an upload: continue the upload the caller named or the store remembers, from the byte
 * the service says it holds (the service is the source of truth), or initiate a new one.
 */
import { NotFoundError, PromoReviewError } from "@promo-review/errors";
import { claimBeyond } from "./failure.js";
import { initiateUpload, uploadPath } from "./initiate.js";
import type { ResumeRecord, UploadState, UploadStatus } from "./types.js";
import type { UploadContext } from "./upload-context.js";
import { getUploadState } from "./wait.js";

/** The chunk size a resumed upload starts from when nothing says better. */
export const RESUME_CHUNK_SIZE = 8 * 1024 * 1024;

/** Where an upload stands once it has an id: what phase 1 found, where phase 2 starts. */
export interface Placement {
  uploadId: string;
  uploadUrl: string;
  maxChunkSize: number;
  /** The bytes the service already holds: 0 for a new upload. */
  resumedFrom: number;
  /** Whether an earlier run may have sent any byte of the file (so the service may hold any of it). */
  resumed: boolean;
  /** The status read when resuming; `undefined` for a new upload. */
  status: UploadStatus | undefined;
  /** The correlation id of the service's last answer. */
  correlationId: string;
}

/** An existing upload to continue, with its status as just read. */
interface Found {
  uploadId: string;
  state: UploadState;
  /** The chunk size the store remembers for it, if it does. */
  maxChunkSize: number | undefined;
}

/**
 * Phase 1: continues upload `resumeId` when given, else the unfinished upload the store remembers for
 * this file (when the service still has it), else initiates one; then emits `initiated`.
 */
export async function resumeOrInitiate(
  upload: UploadContext,
  resumeId: string | undefined,
): Promise<Placement> {
  const remembered = await upload.settings.store.get(upload.fingerprint);
  const found =
    resumeId === undefined
      ? await findRemembered(upload, remembered)
      : await readNamed(upload, resumeId, remembered);
  const placed = found ? await resume(upload, found, remembered) : await initiate(upload);
  const { uploadId, maxChunkSize, resumedFrom } = placed;
  upload.emit("initiated", { uploadId, maxChunkSize, resumedFrom });
  return placed;
}

/** The upload the caller named: it is this upload's from now on, whatever its status read gives. */
async function readNamed(
  upload: UploadContext,
  uploadId: string,
  remembered: ResumeRecord | undefined,
): Promise<Found> {
  upload.reached.uploadId = uploadId;
  const state = await getUploadState(upload.meter.http, uploadId, upload);
  const maxChunkSize = remembered?.uploadId === uploadId ? remembered.maxChunkSize : undefined;
  return { uploadId, state, maxChunkSize };
}

/**
 * The upload the store remembers for this file, when the service still has it unfailed and of this
 * size; otherwise the record is forgotten and `undefined` says to start again.
 */
async function findRemembered(
  upload: UploadContext,
  remembered: ResumeRecord | undefined,
): Promise<Found | undefined> {
  if (!remembered || remembered.fileSize !== upload.size) return undefined;
  const state = await getUploadState(upload.meter.http, remembered.uploadId, upload).catch(
    (error: unknown) => {
      // An upload the service no longer knows is simply started again.
      if (error instanceof NotFoundError) return undefined;
      throw error;
    },
  );
  if (state && state.status !== "failed" && (state.fileSize ?? upload.size) === upload.size) {
    upload.reached.uploadId = remembered.uploadId;
    return { uploadId: remembered.uploadId, state, maxChunkSize: remembered.maxChunkSize };
  }
  await upload.settings.store.delete(upload.fingerprint);
  return undefined;
}

/** Continues `found` from the byte the service holds, after checking its status fits this file. */
async function resume(
  upload: UploadContext,
  found: Found,
  remembered: ResumeRecord | undefined,
): Promise<Placement> {
  const { uploadId, state } = found;
  const { size } = upload;
  if (state.fileSize !== undefined && state.fileSize !== size) {
    throw new PromoReviewError({
      code: "VALIDATION_ERROR",
      message: `Upload ${uploadId} expects ${state.fileSize} bytes but the source holds ${size}; resume it with the same file`,
      correlationId: state.correlationId,
    });
  }
  if (state.status === "failed") {
    throw new PromoReviewError({
      code: "UPLOAD_FAILED",
      message: `The file service marked upload ${uploadId} failed; upload the file again`,
      correlationId: state.correlationId,
    });
  }
  const received = state.receivedBytes ?? 0;
  if (received > size)
    throw claimBeyond("uploads.status", "receivedBytes", received, size, state.correlationId);
  const resumedFrom = state.status === "completed" ? size : received;
  upload.reached.acknowledged = resumedFrom;
  const maxChunkSize = found.maxChunkSize ?? upload.options.chunkSize ?? RESUME_CHUNK_SIZE;
  if (!remembered || remembered.uploadId !== uploadId) {
    await upload.settings.store.set(upload.fingerprint, { uploadId, maxChunkSize, fileSize: size });
  }
  const { status, correlationId } = state;
  return {
    uploadId,
    uploadUrl: uploadPath(uploadId),
    maxChunkSize,
    resumedFrom,
    resumed: true,
    status,
    correlationId,
  };
}

/** Initiates a new upload and remembers it under the file's fingerprint. */
async function initiate(upload: UploadContext): Promise<Placement> {
  const { fileName, size: fileSize, contentType } = upload;
  const initiated = await initiateUpload(upload.meter.http, { fileName, fileSize, contentType }, upload);
  const { uploadId, maxChunkSize } = initiated;
  upload.reached.uploadId = uploadId;
  await upload.settings.store.set(upload.fingerprint, { uploadId, maxChunkSize, fileSize });
  return { ...initiated, resumedFrom: 0, resumed: false, status: undefined };
}
